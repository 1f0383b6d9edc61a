import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance } from '../helpers/instance.js';

interface Jrd { subject: string; aliases?: string[]; links: { rel: string; type?: string; href?: string }[] }

const ORIGIN = 'https://xn--bcher-kva.example';
const HOST = 'xn--bcher-kva.example';

/** A GET on the instance's loopback address with the public Host header, as a TLS proxy would forward it. */
function get(inst: TestInstance, path: string, accept = 'application/jrd+json'): Promise<{ status: number; body: string }> {
  const u = new URL(inst.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method: 'GET', path, headers: { host: HOST, accept } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function webfinger(inst: TestInstance, resource: string): Promise<{ status: number; jrd: Jrd | null }> {
  const res = await get(inst, `/.well-known/webfinger?resource=${encodeURIComponent(resource)}`);
  return { status: res.status, jrd: res.status === 200 ? (JSON.parse(res.body) as Jrd) : null };
}

describe('WebFinger on an instance whose origin is an internationalized domain (bücher.example)', () => {
  let inst: TestInstance;
  beforeAll(async () => {
    // Given in Unicode: the origin is normalized to its ASCII (punycode) form.
    inst = await startInstance({ origin: 'https://bücher.example', allowedHosts: [HOST] });
    await inst.createUser('alice');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('uses the punycode origin for the actor', async () => {
    const res = await get(inst, '/users/alice', 'application/activity+json');
    expect(res.status).toBe(200);
    const actor = JSON.parse(res.body) as { id: string; preferredUsername: string };
    expect(actor.id).toBe(`${ORIGIN}/users/alice`);
    expect(actor.preferredUsername).toBe('alice');
  });

  it('answers acct: with the ASCII and the Unicode domain alike, in any case', async () => {
    for (const resource of ['acct:alice@xn--bcher-kva.example', 'acct:alice@bücher.example', 'acct:alice@BÜCHER.example', 'alice@bücher.example']) {
      const { status, jrd } = await webfinger(inst, resource);
      expect(status, resource).toBe(200);
      expect(jrd?.subject, resource).toBe(`acct:alice@${HOST}`);
      const self = jrd?.links.find((l) => l.rel === 'self');
      expect(self?.href, resource).toBe(`${ORIGIN}/users/alice`);
      expect(self?.type, resource).toBe('application/activity+json');
    }
    expect((await webfinger(inst, 'acct:nobody@bücher.example')).status).toBe(404);
    expect((await webfinger(inst, 'acct:alice@other.example')).status).toBe(404);
  });

  it('round-trips the handle: subject → actor (preferredUsername@host) → the same subject, also by actor URL', async () => {
    const { jrd } = await webfinger(inst, 'acct:alice@bücher.example');
    const href = jrd?.links.find((l) => l.rel === 'self')?.href ?? '';
    const actor = JSON.parse((await get(inst, new URL(href).pathname, 'application/activity+json')).body) as { id: string; preferredUsername: string };
    const handle = `acct:${actor.preferredUsername}@${new URL(actor.id).host}`;
    expect(handle).toBe(jrd?.subject);
    const byUrl = await webfinger(inst, actor.id);
    expect(byUrl.jrd?.subject).toBe(handle);
    expect(byUrl.jrd?.aliases).toContain(actor.id);
  });
});
