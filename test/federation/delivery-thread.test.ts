import { createHash } from 'node:crypto';
import { getPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueMessage, queueDepth } from '../../api/db/repos/federation.js';
import { DeliveryThread } from '../../api/federation/delivery-thread.js';
import { cryptoOnThisThread } from '../../api/federation/thread-crypto.js';
import { newId } from '../../api/util/ids.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { FakeRemote, type FakeActor } from './fake-remote.js';
import { eventually, startFederated } from './helpers.js';

describe('deliveries run on their own thread', () => {
  let inst: TestInstance & { origin: string };
  let alice: TestUser;
  let remote: FakeRemote;
  let mona: FakeActor;

  beforeAll(async () => {
    inst = await startFederated('127.0.0.61');
    alice = await inst.createUser('alice');
    remote = await FakeRemote.start('127.0.0.62');
    mona = await remote.actor('/users/mona', (a) => ({
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
      id: a.id,
      type: 'Person',
      preferredUsername: 'mona',
      inbox: a.inbox,
      publicKey: { id: a.keyId, owner: a.id, publicKeyPem: a.publicKeyPem },
    }));
  });

  afterAll(async () => {
    await inst?.close();
    await remote?.close();
  });

  it('an instance that never federated has no delivery thread until its first delivery, which the thread sends signed', async () => {
    expect(inst.app.federation?.deliveryThreadId).toBeNull();
    const follow = { '@context': 'https://www.w3.org/ns/activitystreams', id: remote.url('/follows/1'), type: 'Follow', actor: mona.id, object: `${inst.origin}/users/alice` };
    expect(await remote.send(inst.origin, mona, follow)).toBe(202);
    // The Accept is the instance's first delivery: it starts the thread, which sends it.
    const accept = await eventually(() => remote.received.find((r) => r.method === 'POST' && r.body?.type === 'Accept'));
    expect(accept.path).toBe('/users/mona/inbox');
    expect(String(accept.headers.signature)).toContain(`keyId="${inst.origin}/users/alice#main-key"`);
    expect(accept.headers.digest).toMatch(/^SHA-256=/);
    const threadId = inst.app.federation?.deliveryThreadId;
    expect(typeof threadId).toBe('number');
    expect(threadId).toBeGreaterThan(0);
    // A post then goes to the follower through the same thread.
    const posted = await alice.client.post('/api/v1/statuses', { status: 'Hello from the thread', visibility: 'public' });
    expect(posted.status).toBe(200);
    await eventually(() => remote.deliveries('Create').length === 1);
    expect(inst.app.federation?.deliveryThreadId).toBe(threadId);
  });

  it('stopping the instance ends the thread', async () => {
    const federation = inst.app.federation;
    expect(federation?.deliveryThreadId).not.toBeNull();
    await federation?.stop();
    expect(federation?.deliveryThreadId).toBeNull();
  });
});

describe('an idle delivery thread', () => {
  let inst: TestInstance;
  let thread: DeliveryThread | null = null;

  beforeAll(async () => {
    // A plain instance for its migrated database; the thread under test is the only one delivering.
    inst = await startInstance();
  });

  afterAll(async () => {
    await thread?.stop();
    await inst?.close();
  });

  it('is ended after a while with nothing to deliver, and started again when a delayed delivery falls due', async () => {
    thread = new DeliveryThread({
      dbFile: inst.deps.db.raw.name,
      settings: { origin: 'http://127.0.0.64:1', allowPrivateAddress: true },
      queueOptions: { pollMs: 50 },
      idleMs: 300,
    });
    thread.ensure();
    const first = thread.threadId;
    expect(first).not.toBeNull();
    await eventually(() => thread?.threadId === null, 5000);
    // A retry due in a second: a thread is started for it then (none runs meanwhile).
    const at = Date.now();
    enqueueMessage(inst.deps.db, { id: newId(at), queue: 'outbox', message: '{}', ordering_key: null, next_attempt_at: at + 1000, created_at: at });
    thread.ensureBy(at + 1000);
    expect(thread.threadId).toBeNull();
    const second = await eventually(() => thread?.threadId, 5000);
    expect(second).not.toBe(first);
    expect(Date.now() - at).toBeGreaterThanOrEqual(900);
    // It takes the message (not a real delivery: dropped or rescheduled, but no longer due).
    await eventually(() => queueDepth(inst.deps.db, 'outbox', Date.now()).ready === 0, 5000);
    await thread.stop();
    expect(thread.threadId).toBeNull();
  });
});

describe('the delivery thread yields the core', () => {
  it('signs, verifies and hashes on the calling thread with the very bytes and answers WebCrypto gives, and leaves other algorithms to WebCrypto', async () => {
    const { subtle } = globalThis.crypto;
    // WebCrypto's own methods, whatever this process has taken over already (an instance started
    // in this file takes over verification and digests on the main thread).
    const webCrypto = Object.getPrototypeOf(subtle) as typeof subtle;
    const rsa = await subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
    const ec = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const data = new TextEncoder().encode('(request-target): post /inbox\nhost: example.test');
    const viaPool = Buffer.from(await webCrypto.sign.call(subtle, 'RSASSA-PKCS1-v1_5', rsa.privateKey, data));
    const digestViaPool = Buffer.from(await webCrypto.digest.call(subtle, 'SHA-256', data));
    const restore = cryptoOnThisThread({ sign: true, verify: true, digest: true });
    try {
      expect(Object.hasOwn(subtle, 'sign')).toBe(true);
      const here = Buffer.from(await subtle.sign({ name: 'RSASSA-PKCS1-v1_5' }, rsa.privateKey, data));
      expect(here.equals(viaPool)).toBe(true);
      expect(await subtle.verify('RSASSA-PKCS1-v1_5', rsa.publicKey, here, data)).toBe(true);
      expect(await webCrypto.verify.call(subtle, 'RSASSA-PKCS1-v1_5', rsa.publicKey, here, data)).toBe(true);
      // A signature of other bytes, or a damaged one, does not verify (false, as WebCrypto answers).
      const other = new TextEncoder().encode('(request-target): post /users/alice/inbox');
      expect(await subtle.verify('RSASSA-PKCS1-v1_5', rsa.publicKey, here, other)).toBe(false);
      const damaged = Buffer.from(here);
      damaged[10] = (damaged[10] ?? 0) ^ 1;
      expect(await subtle.verify('RSASSA-PKCS1-v1_5', rsa.publicKey, damaged, data)).toBe(false);
      // A view into a larger buffer signs just its bytes.
      const padded = new Uint8Array(data.length + 8);
      padded.set(data, 4);
      expect(Buffer.from(await subtle.sign('RSASSA-PKCS1-v1_5', rsa.privateKey, padded.subarray(4, 4 + data.length))).equals(viaPool)).toBe(true);
      expect(Buffer.from(await subtle.digest({ name: 'SHA-256' }, data)).equals(digestViaPool)).toBe(true);
      expect(Buffer.from(await subtle.digest('SHA-512', data)).toString('hex')).toBe(createHash('sha512').update(data).digest('hex'));
      const ecSignature = await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, ec.privateKey, data);
      expect(await subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, ec.publicKey, ecSignature, data)).toBe(true);
      // A public key cannot sign, here as in WebCrypto.
      await expect(subtle.sign('RSASSA-PKCS1-v1_5', rsa.publicKey, data)).rejects.toThrow();
    } finally {
      restore();
    }
    expect(subtle.sign).toBe(webCrypto.sign);
  });

  it('lowers the priority of the thread that asks, not the process', async () => {
    if (process.platform !== 'linux') return;
    const module = new URL('../../dist/api/federation/thread-crypto.js', import.meta.url).href;
    // A module worker from a data: URL (the thread-crypto module is loaded from the build).
    const code = `import { readlinkSync } from 'node:fs';
       import { createHash } from 'node:crypto';
import { getPriority } from 'node:os';
       import { parentPort } from 'node:worker_threads';
       const { lowerThreadPriority } = await import(${JSON.stringify(module)});
       const lowered = lowerThreadPriority(7);
       const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
       parentPort.postMessage({ lowered, tid, priority: getPriority(tid) });`;
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`));
    const result = await new Promise<{ lowered: boolean; tid: number; priority: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(result.lowered).toBe(true);
    expect(result.tid).not.toBe(process.pid);
    expect(result.priority).toBe(7);
    expect(getPriority(process.pid)).toBe(0);
  });
});
