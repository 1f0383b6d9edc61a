import { createFederation, generateCryptoKeyPair, MemoryKvStore, type KvKey } from '@fedify/fedify';
import type { webcrypto } from 'node:crypto';
import { CryptographicKey } from '@fedify/vocab';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { reuseParsedKeys } from '../../api/federation/key-memo.js';
import { FakeRemote, MASTODON_CONTEXT, PUBLIC, mastodonPerson, type FakeActor } from './fake-remote.js';
import { startFederated } from './helpers.js';
import { drain } from './replay.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;

/** Public keys imported by WebCrypto from now on (the spy calls through: nothing is faked). */
function countKeyImports(): () => number {
  const spy = vi.spyOn(crypto.subtle, 'importKey');
  return () => spy.mock.calls.filter((call) => call[0] === 'spki').length;
}

async function pem(key: webcrypto.CryptoKey): Promise<string> {
  const spki = Buffer.from(await crypto.subtle.exportKey('spki', key)).toString('base64');
  return `-----BEGIN PUBLIC KEY-----\n${spki}\n-----END PUBLIC KEY-----\n`;
}

/**
 * A signer's key parsed once: Fedify keeps fetched keys in the key-value store and parsed them again
 * (a JSON-LD expansion and a PEM import) for every inbound activity. If a Fedify upgrade renames
 * the internals this relies on, the first test fails (the instance would still work, only slower).
 */
describe('signer keys parsed once per key document', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('hooks the key cache reads: an unchanged document is parsed once, a changed one anew', async () => {
    const federation = createFederation<unknown>({ kv: new MemoryKvStore(), userAgent: { software: 'Hearth/test' } });
    const impl = federation as unknown as { kv: MemoryKvStore; kvPrefixes: { publicKey: string[] } };
    expect(impl.kvPrefixes.publicKey).toEqual(['_fedify', 'publicKey']);
    expect(reuseParsedKeys(federation)).toBe(true);
    const keyId = 'https://peer.example/users/kim#main-key';
    const entry: KvKey = ['_fedify', 'publicKey', keyId];
    const store = async (key: webcrypto.CryptoKey) => {
      const doc = { '@context': 'https://w3id.org/security/v1', id: keyId, type: 'CryptographicKey', owner: 'https://peer.example/users/kim', publicKeyPem: await pem(key) };
      await impl.kv.set(entry, doc);
    };
    const first = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
    await store(first.publicKey);
    const imports = countKeyImports();
    const parse = async () => CryptographicKey.fromJsonLd(await impl.kv.get(entry));
    const a = await parse();
    const b = await parse();
    const c = await parse();
    expect(imports()).toBe(1);
    expect(b).not.toBe(a);
    expect(b.publicKey).toBe(a.publicKey);
    expect(c.id?.href).toBe(keyId);
    expect(c.ownerId?.href).toBe('https://peer.example/users/kim');
    // Rotated: the stored document changed, so it is parsed and the new key used.
    const second = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
    await store(second.publicKey);
    const d = await parse();
    expect(imports()).toBe(2);
    expect(await pem(d.publicKey as webcrypto.CryptoKey)).toBe(await pem(second.publicKey));
    // A document from anywhere else is Fedify's business, parsed every time.
    const elsewhere = { '@context': 'https://w3id.org/security/v1', id: keyId, type: 'CryptographicKey', owner: 'https://peer.example/users/kim', publicKeyPem: await pem(first.publicKey) };
    await CryptographicKey.fromJsonLd(elsewhere);
    await CryptographicKey.fromJsonLd(elsewhere);
    expect(imports()).toBe(4);
  });

  describe('on an instance, from a live peer', () => {
    let inst: Inst;
    let masto: FakeRemote;
    let kim: FakeActor;
    let seq = 0;
    const create = async (from: FakeActor, signAs?: FakeActor): Promise<{ status: number; id: string }> => {
      seq += 1;
      const id = masto.url(`/users/kim/statuses/${seq}`);
      const note = { id, type: 'Note', attributedTo: kim.id, to: [PUBLIC], content: `<p>note ${seq}</p>`, published: new Date().toISOString() };
      const activity = { '@context': MASTODON_CONTEXT, id: `${id}/activity`, type: 'Create', actor: kim.id, to: [PUBLIC], object: note };
      const status = await masto.send(inst.origin, from, activity, signAs ? { signAs } : {});
      await drain(inst);
      return { status, id };
    };
    const stored = (uri: string) => inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM statuses WHERE uri = ?').get(uri)?.n;

    beforeAll(async () => {
      inst = await startFederated('127.0.0.2');
      masto = await FakeRemote.start('127.0.0.5');
      kim = await masto.actor('/users/kim', (a) => mastodonPerson(masto, a, 'kim'));
    });
    afterAll(async () => {
      await inst.close();
      await masto.close();
    });

    it('imports the key for the first activity only, takes a rotated key, and still refuses forged signatures', async () => {
      // The first activity fetches the key (and stores it), the second parses the stored one.
      for (let i = 0; i < 2; i++) {
        const first = await create(kim);
        expect(first.status).toBe(202);
        expect(stored(first.id)).toBe(1);
      }

      const imports = countKeyImports();
      for (let i = 0; i < 3; i++) {
        const next = await create(kim);
        expect(next.status).toBe(202);
        expect(stored(next.id)).toBe(1);
      }
      expect(imports()).toBe(0);

      // Signed with a key the actor does not publish (same key id): refused, nothing stored.
      const forger = { ...kim, keys: await generateCryptoKeyPair('RSASSA-PKCS1-v1_5') };
      const forged = await create(kim, forger);
      expect(forged.status).toBe(401);
      expect(stored(forged.id)).toBe(0);

      // The actor rotates its key: the new document is fetched and its key used from then on.
      const rotated = { ...kim, keys: await generateCryptoKeyPair('RSASSA-PKCS1-v1_5') };
      rotated.publicKeyPem = await pem(rotated.keys.publicKey);
      masto.serve('/users/kim', mastodonPerson(masto, rotated, 'kim'));
      kim = rotated;
      const after = await create(kim);
      expect(after.status).toBe(202);
      expect(stored(after.id)).toBe(1);
      const again = await create(kim);
      expect(again.status).toBe(202);
      expect(stored(again.id)).toBe(1);
      // The old key no longer verifies.
      const old = await create(kim, { ...kim, keys: forger.keys });
      expect(old.status).toBe(401);
    });
  });
});
