import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSetting } from '../../api/db/repos/settings.js';
import { INSTANCE_ACTOR_IDENTIFIER } from '../../api/util/uris.js';
import type { TestInstance } from '../helpers/instance.js';
import { eventually, startFederated } from './helpers.js';

interface Keys {
  publicKeyPem: string;
  privateKeyPem: string;
}

describe('the instance actor key pair', () => {
  let inst: TestInstance & { origin: string };

  beforeAll(async () => {
    inst = await startFederated('127.0.0.63');
  });

  afterAll(async () => {
    await inst?.close();
  });

  it('is made in the background soon after start, before anything needs it, and then served', async () => {
    // Nothing has asked for the instance actor: the keys appear on their own.
    const keys = await eventually(() => getSetting<Keys>(inst.deps.db, 'federation.instance_actor_keys'));
    expect(keys.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(keys.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const res = await fetch(`${inst.origin}/users/${INSTANCE_ACTOR_IDENTIFIER}`, { headers: { accept: 'application/activity+json' } });
    expect(res.status).toBe(200);
    const actor = (await res.json()) as { publicKey?: { publicKeyPem?: string } };
    expect(actor.publicKey?.publicKeyPem?.trim()).toBe(keys.publicKeyPem.trim());
    // Made once: still the same pair afterwards.
    expect(getSetting<Keys>(inst.deps.db, 'federation.instance_actor_keys')).toEqual(keys);
  });
});
