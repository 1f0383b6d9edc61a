import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { queueDepth } from '../../api/db/repos/federation.js';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { eventually, freePort, startFederated } from './helpers.js';

type Federated = TestInstance & { origin: string; domain: string };
interface Pause {
  paused: boolean;
  since: string | null;
}
interface Status {
  content: string;
}

const PATH = '/api/hearth/federation';

/** Starts (or starts again, on the same data and address) instance A at 127.0.0.2. */
async function startA(dataDir: string, port: number): Promise<Federated> {
  const origin = `http://127.0.0.2:${port}`;
  const inst = await startInstance({ dataDir, bind: '127.0.0.2', port, origin, federationAllowLoopback: true });
  return Object.assign(inst, { origin, domain: `127.0.0.2:${port}` });
}

/** Nothing for a while: what must not happen is given time to happen. */
const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('pausing federation (the owner, from the tray or the Connection screen)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-pause-'));
  let port: number;
  let a: Federated;
  let b: Federated;
  let kim: TestUser;
  let bob: TestUser;
  let bea: TestUser;
  let bobOnA = '';

  beforeAll(async () => {
    port = await freePort('127.0.0.2');
    a = await startA(dataDir, port);
    b = await startFederated('127.0.0.3');
    kim = await a.createUser('kim', { role: 'owner' });
    bob = await b.createUser('bob');
    bea = await b.createUser('bea', { role: 'owner' });
    // Each follows the other: posts go both ways.
    const kimOnB = (await b.app.federation?.resolveAccount(`${a.origin}/users/kim`))?.id ?? '';
    bobOnA = (await a.app.federation?.resolveAccount(`${b.origin}/users/bob`))?.id ?? '';
    expect((await bob.client.post(`/api/v1/accounts/${kimOnB}/follow`)).status).toBe(200);
    expect((await kim.client.post(`/api/v1/accounts/${bobOnA}/follow`)).status).toBe(200);
    await eventually(async () => ((await kim.client.get(`/api/v1/accounts/${kim.accountId}/followers`)).body as unknown[]).length === 1);
    await eventually(async () => ((await bob.client.get(`/api/v1/accounts/${bob.accountId}/followers`)).body as unknown[]).length === 1);
  }, 60_000);
  afterEach(() => resetClock());
  afterAll(async () => {
    await a?.close();
    await b?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const bobHome = async () => ((await bob.client.get('/api/v1/timelines/home')).body as Status[]).map((s) => s.content).join('\n');
  const kimHome = async () => ((await kim.client.get('/api/v1/timelines/home')).body as Status[]).map((s) => s.content).join('\n');
  const inboxPost = (path: string) => fetch(`${a.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: '{}' });

  it('is the owner’s: read and write scopes, 403 for anyone else, 401 without a token, checked payloads', async () => {
    const res = await kim.client.get(PATH, { skipSchema: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ paused: false, since: null });

    const admin = await a.createUser('ada', { role: 'admin', scopes: 'read write admin:read admin:write' });
    expect((await admin.client.get(PATH, { skipSchema: true })).status).toBe(403);
    expect((await admin.client.put(PATH, { paused: true }, { skipSchema: true })).status).toBe(403);
    expect((await a.anon.get(PATH, { skipSchema: true })).status).toBe(401);
    expect((await a.anon.put(PATH, { paused: true }, { skipSchema: true })).status).toBe(401);
    // Reading takes read, changing write (the desktop's own token has both).
    expect((await kim.client.withToken(a.tokenFor(kim, 'write')).get(PATH, { skipSchema: true })).status).toBe(403);
    expect((await kim.client.withToken(a.tokenFor(kim, 'read')).put(PATH, { paused: true }, { skipSchema: true })).status).toBe(403);
    expect((await kim.client.withToken(a.tokenFor(kim, 'read')).get(PATH, { skipSchema: true })).status).toBe(200);
    expect((await kim.client.withToken(a.tokenFor(kim, 'admin:read admin:write')).get(PATH, { skipSchema: true })).status).toBe(403);

    const missing = await kim.client.put(PATH, {}, { skipSchema: true });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'param is missing or the value is empty or invalid: paused' });
    expect((await kim.client.put(PATH, { paused: { yes: 1 } }, { skipSchema: true })).status).toBe(422);
    expect((await kim.client.put(PATH, { paused: [true] }, { skipSchema: true })).status).toBe(422);
    // Mastodon's boolean strings: 'false' is false (a form body too).
    const off = await kim.client.put(PATH, undefined, { form: { paused: 'false' }, skipSchema: true });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ paused: false, since: null });
    // Nothing was paused by any of it.
    expect((await kim.client.get(PATH, { skipSchema: true })).body).toEqual({ paused: false, since: null });
  });

  it('holds deliveries and refuses the inbox with 503 and Retry-After; a restart keeps it paused', async () => {
    const before = Date.now();
    const res = await kim.client.put(PATH, { paused: true }, { skipSchema: true });
    expect(res.status).toBe(200);
    const paused = res.body as Pause;
    expect(paused.paused).toBe(true);
    expect(Date.parse(paused.since ?? '')).toBeGreaterThanOrEqual(before - 1000);
    // Pausing again keeps the first time.
    expect((await kim.client.put(PATH, { paused: 'true' }, { skipSchema: true })).body).toEqual(paused);

    // The delivery thread ends and the post stays in the queue.
    await eventually(() => a.app.federation?.deliveryThreadId === null);
    expect((await kim.client.post('/api/v1/statuses', { status: 'said while paused' })).status).toBe(200);
    await eventually(() => queueDepth(a.deps.db, 'outbox', Date.now()).queued > 0);
    await quiet(1500);
    expect(await bobHome()).not.toContain('said while paused');
    expect(a.app.federation?.deliveryThreadId).toBeNull();

    // The inbox answers 503 with Retry-After (peers retry), the shared and the personal one.
    for (const path of ['/inbox', '/users/kim/inbox']) {
      const answer = await inboxPost(path);
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('600');
    }
    // A real peer's delivery is refused too: B records A's inbox as failing with 503.
    expect((await bob.client.post('/api/v1/statuses', { status: 'bob while kim paused' })).status).toBe(200);
    await eventually(async () => {
      const peers = (await bea.client.get('/api/hearth/federation/failing_peers')).body as { host: string; last_status: number }[];
      return peers.some((p) => p.host === a.domain && p.last_status === 503);
    });
    // Public documents are still served (peers must not think the account gone).
    expect((await fetch(`${a.origin}/users/kim`, { headers: { accept: 'application/activity+json' } })).status).toBe(200);

    // A restart on the same data is still paused, since the same time, and holds the queue.
    await a.close();
    a = await startA(dataDir, port);
    // (The first request may meet a keep-alive connection of the stopped server: tried again.)
    expect(await eventually(async () => (await kim.client.get(PATH, { skipSchema: true })).body as Pause)).toEqual(paused);
    expect((await inboxPost('/inbox')).status).toBe(503);
    await quiet(1000);
    expect(a.app.federation?.deliveryThreadId).toBeNull();
    expect(await bobHome()).not.toContain('said while paused');
  });

  it('resuming sends what waited, and peers get through on their next retry', async () => {
    const res = await kim.client.put(PATH, { paused: false }, { skipSchema: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ paused: false, since: null });
    await eventually(async () => (await bobHome()).includes('said while paused'));
    expect((await inboxPost('/inbox')).status).not.toBe(503);
    // B's retry of its refused delivery was put off by the Retry-After (ten minutes); it falls due
    // (by the shared clock: within the signatures' window, as Fedify dates them by the real one) and lands.
    const retry = b.deps.db.query<{ at: number }>("SELECT next_attempt_at AS at FROM federation_queue WHERE queue = 'outbox'").get();
    expect(retry?.at).toBeGreaterThan(Date.now() + 5 * 60 * 1000);
    setClockTo(Date.now() + 11 * 60 * 1000);
    await eventually(async () => (await kimHome()).includes('bob while kim paused'));
  });
});
