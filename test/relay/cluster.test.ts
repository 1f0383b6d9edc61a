// What only PostgreSQL does: several relay processes sharing one database, a tenant's tunnel held
// by any one of them. Here the two processes are two relays created in this process (each with
// its own store, connection pool, LISTEN connection, node id and port, exactly what
// `hearth relay serve --database postgres://…` builds), so that the test can look into each
// (who holds which session, what each counted), write into one's store behind its back, and stop
// one while the other runs. Real `hearth relay serve` processes run in through-relay.test.ts.
//
// No balancer: peers' requests go straight to the process the test picks, with the tenant's Host.
// Only the address the instance dials (the relay's domain) is a plain TCP forwarder, pointed by
// the test, since the instance keeps the one relay URL it enrolled with.
import { createHash, generateKeyPairSync } from 'node:crypto';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { signRequest } from '@fedify/fedify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTunnel } from '../../api/relay/tunnel-client.js';
import { classify } from '../../relay/classify.js';
import { HOP_HEADER, NODE_STALE_MS } from '../../relay/nodes.js';
import { encodeFrame, type ToInstance } from '../../relay/protocol.js';
import type { RelaySignal } from '../../relay/store/types.js';
import { REPLAY_POLL_MS } from '../../relay/tunnel/session.js';
import { FakeRemote, mastodonPerson, type FakeActor } from '../federation/fake-remote.js';
import { eventually } from '../federation/helpers.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { FrontDoor, httpRequest, RelayDatabases, startRelay, type RelayRig } from './rig.js';

const databases = new RelayDatabases();
afterAll(() => databases.stop());

const AP = { accept: 'application/activity+json' };

/** A counter of a relay process's metrics (0 when it has not counted any). */
function counted(rig: RelayRig, name: string, labels: Record<string, string>): number {
  const wanted = `${name}{${Object.entries(labels).map(([k, v]) => `${k}="${v}"`).join(',')}} `;
  const line = rig.relay.metrics.render([], 0).split('\n').find((l) => l.startsWith(wanted));
  return line ? Number(line.slice(wanted.length)) : 0;
}

describe('two relay processes sharing one PostgreSQL database', () => {
  let door: FrontDoor;
  let one: RelayRig;
  let two: RelayRig;
  let host: string;
  let origin: string;
  let tenantId: string;
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let peer: FakeRemote;
  const actors: Record<string, FakeActor> = {};
  /** Signals process one's store heard (through its own LISTEN connection). */
  const heardByOne: RelaySignal[] = [];

  /** The node id and URL of the process holding a tenant's tunnel, per the store. */
  async function holder(tenant = tenantId): Promise<{ id: string; url: string } | null> {
    const id = await two.relay.store.tunnelHolder(tenant);
    const node = id ? await two.relay.store.nodeById(id) : null;
    return id ? { id, url: node?.url ?? '' } : null;
  }

  /** `activity` signed by `actor` for the instance's inbox: the headers and body a peer sends. */
  async function signed(actor: FakeActor, activity: Record<string, unknown>): Promise<{ headers: Record<string, string>; body: string }> {
    const body = JSON.stringify(activity);
    const request = new Request(`${origin}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
    const out = await signRequest(request, actor.keys.privateKey, new URL(actor.keyId), { spec: 'draft-cavage-http-signatures-12' });
    const headers: Record<string, string> = {};
    out.headers.forEach((v, k) => {
      headers[k] = v;
    });
    return { headers: { ...headers, host, 'content-length': String(Buffer.byteLength(body)) }, body };
  }

  /** A peer's inbox POST to one relay process (as a balancer would have sent it there). */
  async function deliver(rig: RelayRig, actor: FakeActor, activity: Record<string, unknown>): Promise<number> {
    const { headers, body } = await signed(actor, activity);
    return (await httpRequest(`${rig.local}/inbox`, { method: 'POST', headers, body })).status;
  }

  const follow = (actor: FakeActor, user = 'alice') => ({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${actor.id}#follows/${user}`,
    type: 'Follow',
    actor: actor.id,
    object: `${origin}/users/${user}`,
  });

  async function followers(user: TestUser = alice): Promise<string[]> {
    const res = await user.client.get(`/api/v1/accounts/${user.accountId}/followers`);
    return (res.body as { username: string }[]).map((a) => a.username).sort();
  }

  beforeAll(async () => {
    const databaseUrl = await databases.url('postgres');
    door = await FrontDoor.start(null);
    const domain = `127.0.0.1:${door.port}`;
    one = await startRelay({ databaseUrl, domain });
    two = await startRelay({ databaseUrl, domain });
    await one.relay.store.onSignal((s) => heardByOne.push(s));
    door.point(one.port);
    // The tenant's public host is on the shared address too (where the balancer would answer).
    host = `127.0.0.51:${door.port}`;
    origin = `http://${host}`;
    const code = await one.addTenant(host);
    tenantId = (await one.relay.store.tenantByHost(host))?.id ?? '';
    inst = await startInstance({ relay: one.url, relayCode: code, federationAllowLoopback: true });
    expect(await inst.app.relay?.whenConnected(20_000)).toBe(true);
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    peer = await FakeRemote.start('127.0.0.52');
    for (const name of ['mona', 'nina', 'pia']) actors[name] = await peer.actor(`/users/${name}`, (a) => mastodonPerson(peer, a, name));
  }, 60_000);
  afterAll(async () => {
    await inst?.close();
    await one?.close();
    await two?.close();
    await peer?.close();
    await door?.close();
  });

  it('records the process the instance dialled as the holder of its tunnel', async () => {
    expect(one.relay.tunnels.session(tenantId)).toBeDefined();
    expect(two.relay.tunnels.session(tenantId)).toBeUndefined();
    expect((await eventually(() => holder()))?.url).toBe(one.local);
  });

  it('stores a delivery at the other process, and NOTIFY wakes the holder, which replays it', async () => {
    const mona = actors.mona as FakeActor;
    expect(await deliver(two, mona, follow(mona))).toBe(202);
    expect(counted(two, 'hearth_relay_inbox_posts_total', { status: '202' })).toBe(1);
    await eventually(() => counted(one, 'hearth_relay_replayed_total', { tenant: host }) === 1);
    // Process two's NOTIFY reached process one's LISTEN connection (what wakes its replay).
    expect(heardByOne).toContainEqual({ kind: 'inbound', tenantId });
    expect(await eventually(async () => ((await followers()).includes('mona') ? followers() : undefined))).toEqual(['mona']);
    expect(counted(two, 'hearth_relay_replayed_total', { tenant: host })).toBe(0);
    // The Accept left through the process holding the tunnel.
    await eventually(() => peer.deliveries('Accept').length === 1);
    await eventually(() => counted(one, 'hearth_relay_sent_total', { outcome: 'ok' }) >= 1);
  });

  it('hands a live GET at the other process to the holder, and the instance answers it', async () => {
    const before = { node: counted(two, 'hearth_relay_live_requests_total', { how: 'node' }), tunnel: counted(one, 'hearth_relay_live_requests_total', { how: 'tunnel' }) };
    const res = await httpRequest(`${two.local}/users/alice`, { headers: { ...AP, host } });
    expect(res.status).toBe(200);
    expect(res.headers['x-hearth-relay']).toBeUndefined();
    expect(JSON.parse(res.text)).toMatchObject({ id: `${origin}/users/alice`, inbox: `${origin}/users/alice/inbox` });
    expect(counted(two, 'hearth_relay_live_requests_total', { how: 'node' })).toBe(before.node + 1);
    expect(counted(one, 'hearth_relay_live_requests_total', { how: 'tunnel' })).toBe(before.tunnel + 1);
  });

  it('replays mail written into the store by another process without a signal, by looking now and then', async () => {
    const nina = actors.nina as FakeActor;
    const { headers, body } = await signed(nina, follow(nina));
    const bytes = Buffer.from(body);
    const { type, priority } = classify(bytes, origin);
    const message = { receivedAt: Date.now(), method: 'POST', path: '/inbox', headers: Object.entries(headers), body: bytes, bodyHash: createHash('sha256').update(bytes).digest('hex'), priority, activityType: type };
    // Stored as process two would, but nobody is told (as when a signal is lost).
    expect(await two.relay.store.accept(tenantId, message, { quotaBytes: 1 << 30, dedupeSince: 0 })).toMatchObject({ kind: 'stored' });
    await eventually(async () => (await followers()).includes('nina'), REPLAY_POLL_MS * 2 + 5000);
    // Counted once the acknowledgement is written, a moment after the instance shows it.
    await eventually(() => counted(one, 'hearth_relay_replayed_total', { tenant: host }) === 2);
  });

  describe('a tunnel without an instance behind it', () => {
    const key = generateKeyPairSync('ed25519');
    let beaHost: string;
    let beaId: string;
    let oneNode: string;
    let newer: Awaited<ReturnType<typeof connectTunnel>>;
    const newerFrames: ToInstance[] = [];
    beforeAll(async () => {
      beaHost = `127.0.0.53:${door.port}`;
      const code = await one.addTenant(beaHost);
      const publicKey = key.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
      const enrolled = await connectTunnel(one.url, { kind: 'enrol', code, publicKey, privateKey: key.privateKey }, false, () => {});
      enrolled.ws.close();
      beaId = (await one.relay.store.tenantByHost(beaHost))?.id ?? '';
    });
    afterAll(() => newer?.ws.close());

    it('logging in at the other process replaces the older tunnel held here ("replaced")', async () => {
      const older: ToInstance[] = [];
      const first = await connectTunnel(one.url, { kind: 'login', host: beaHost, privateKey: key.privateKey }, false, (f) => older.push(f));
      const firstClosed = new Promise<void>((resolve) => first.ws.once('close', () => resolve()));
      oneNode = (await eventually(() => holder(beaId))).id;
      expect((await holder(beaId))?.url).toBe(one.local);
      // The balancer sends the next connection to process two.
      door.point(two.port);
      try {
        newer = await connectTunnel(two.url, { kind: 'login', host: beaHost, privateKey: key.privateKey }, false, (f) => newerFrames.push(f));
      } finally {
        door.point(one.port);
      }
      await firstClosed;
      expect(older).toContainEqual(expect.objectContaining({ t: 'refused', reason: 'replaced' }));
      expect(one.relay.tunnels.session(beaId)).toBeUndefined();
      expect(two.relay.tunnels.session(beaId)).toBeDefined();
      expect((await holder(beaId))?.url).toBe(two.local);
    });

    it('keeps the newer tunnel when the signal of an older login elsewhere comes late', async () => {
      await one.relay.store.signal({ kind: 'tunnel', tenantId: beaId, nodeId: oneNode });
      await new Promise((r) => setTimeout(r, 500));
      expect(newer.ws.readyState).toBe(newer.ws.OPEN);
      expect(newerFrames.filter((f) => f.t === 'refused')).toEqual([]);
      expect(two.relay.tunnels.session(beaId)).toBeDefined();
    });

    it('hands a live request over with the original Host, and never shows the instance the node secret', async () => {
      const answered = httpRequest(`${one.local}/users/bea`, { headers: { ...AP, host: beaHost, [HOP_HEADER]: 'forged-by-a-stranger' } });
      const request = await eventually(() => newerFrames.find((f): f is Extract<ToInstance, { t: 'request' }> => f.t === 'request'));
      expect(request).toMatchObject({ method: 'GET', path: '/users/bea' });
      const names = request.headers.map(([name]) => name.toLowerCase());
      expect(names).not.toContain(HOP_HEADER);
      expect(request.headers).toContainEqual(['host', beaHost]);
      newer.ws.send(encodeFrame({ t: 'response', id: request.id, status: 200, headers: [['content-type', 'application/activity+json']] }));
      newer.ws.send(encodeFrame({ t: 'chunk', id: request.id }, Buffer.from('{"id":"bea"}')));
      newer.ws.send(encodeFrame({ t: 'end', id: request.id, error: null }));
      const res = await answered;
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text)).toEqual({ id: 'bea' });
    });

    it('cuts a handed-over answer off when the tunnel drops in the middle of it, leaving no one waiting', async () => {
      const seen = newerFrames.length;
      const outcome = new Promise<{ status: number; complete: boolean | 'still waiting' }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: one.port, path: '/users/bea', headers: { ...AP, host: beaHost } }, (res) => {
          const timer = setTimeout(() => resolve({ status: res.statusCode ?? 0, complete: 'still waiting' }), 5000);
          res.on('error', () => {});
          res.resume();
          res.on('close', () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, complete: res.complete });
          });
        });
        req.on('error', reject);
        req.end();
      });
      const asked = await eventually(() => newerFrames.slice(seen).find((f): f is Extract<ToInstance, { t: 'request' }> => f.t === 'request'));
      newer.ws.send(encodeFrame({ t: 'response', id: asked.id, status: 200, headers: [['content-type', 'application/activity+json']] }));
      newer.ws.send(encodeFrame({ t: 'chunk', id: asked.id }, Buffer.from('{"id":')));
      await eventually(() => counted(one, 'hearth_relay_live_requests_total', { how: 'node' }) === 2);
      newer.ws.terminate();
      expect(await outcome).toEqual({ status: 200, complete: false });
    });
  });

  describe('when the tunnel moves', () => {
    it('answers from the cache at the other process while no process holds the tunnel', async () => {
      await eventually(async () => await two.relay.store.getCache(tenantId, '/users/alice'), 20_000);
      // Process one goes away and the balancer has nowhere to send the instance yet.
      door.point(null);
      await one.stop();
      await eventually(() => !inst.app.relay?.report().connected);
      expect(await two.relay.store.tunnelHolder(tenantId)).toBeNull();
      const cached = await httpRequest(`${two.local}/users/alice`, { headers: { ...AP, host } });
      expect(cached.status).toBe(200);
      expect(cached.headers['x-hearth-relay']).toBe('cache');
      expect(JSON.parse(cached.text)).toMatchObject({ id: `${origin}/users/alice` });
      // A holder that died without letting go (its claim left behind) is not waited for either.
      await two.relay.store.heartbeatNode({ id: 'crashed-node', url: one.local, seenAt: Date.now() });
      await two.relay.store.claimTunnel(tenantId, 'crashed-node', Date.now());
      const again = await httpRequest(`${two.local}/users/alice`, { headers: { ...AP, host } });
      expect(again.status).toBe(200);
      expect(again.headers['x-hearth-relay']).toBe('cache');
      // Nor is one that hung (it takes connections and never answers) and stopped beating.
      const hung = createServer(() => {});
      await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
      try {
        await two.relay.store.heartbeatNode({ id: 'hung-node', url: `http://127.0.0.1:${(hung.address() as AddressInfo).port}`, seenAt: Date.now() - NODE_STALE_MS - 1000 });
        await two.relay.store.claimTunnel(tenantId, 'hung-node', Date.now());
        const started = Date.now();
        const late = await httpRequest(`${two.local}/users/alice`, { headers: { ...AP, host } });
        expect(late.headers['x-hearth-relay']).toBe('cache');
        expect(Date.now() - started).toBeLessThan(5000);
      } finally {
        hung.close();
      }
      // Mail meanwhile is stored for later. (From mona, whose key process two has: in this test
      // process, a relay's own key fetches go through the instance's tunnel, which is down.)
      const mona = actors.mona as FakeActor;
      expect(await deliver(two, mona, follow(mona, 'bob'))).toBe(202);
      expect((await two.relay.store.backlog(tenantId)).count).toBe(1);
    });

    it('replays the backlog from the process the instance reconnects to', async () => {
      door.point(two.port);
      expect(await inst.app.relay?.whenConnected(30_000)).toBe(true);
      expect(two.relay.tunnels.session(tenantId)).toBeDefined();
      expect((await eventually(async () => (['crashed-node', 'hung-node'].includes((await holder())?.id ?? '') ? null : holder())))?.url).toBe(two.local);
      await eventually(async () => (await followers(bob)).includes('mona'), 20_000);
      // Counted once the acknowledgement is written, a moment after the instance shows it.
      await eventually(() => counted(two, 'hearth_relay_replayed_total', { tenant: host }) === 1);
      expect((await two.relay.store.backlog(tenantId)).count).toBe(0);
    });

    it('sends mail from a process that came back to the new holder', async () => {
      await one.restart();
      const pia = actors.pia as FakeActor;
      expect(await deliver(one, pia, follow(pia))).toBe(202);
      await eventually(async () => (await followers()).includes('pia'), REPLAY_POLL_MS);
      expect(one.relay.tunnels.session(tenantId)).toBeUndefined();
      // Counted once the acknowledgement is written, a moment after the instance shows it.
      await eventually(() => counted(two, 'hearth_relay_replayed_total', { tenant: host }) === 2);
    });
  });
});
