// The relay's storage: one suite, run against SQLite and PostgreSQL (a real server, started by
// test/helpers/postgres.ts: without PostgreSQL installed, the PostgreSQL half fails, saying so).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PRIORITIES } from '../../relay/protocol.js';
import { SchemaTooNewError } from '../../relay/store/common.js';
import { TenantExistsError, type RelaySignal, type RelayStore } from '../../relay/store/types.js';
import { addTenant, backends, message, queued, ROOMY, sha256, T0, waitFor, type SuiteContext, type TestDatabase } from './store-rig.js';
import { backendTests } from './store-backend.js';
import { durabilityTests } from './store-durability.js';

describe.each(backends)('relay store on $name', (backend) => {
  let db: TestDatabase;
  let store: RelayStore;
  const extra: RelayStore[] = [];

  beforeAll(() => backend.setup(), 60_000);
  afterAll(() => backend.teardown());
  beforeEach(async () => {
    db = await backend.fresh();
    store = await db.open();
  });
  afterEach(async () => {
    for (const s of extra.splice(0)) await s.close();
    await store.close();
  });

  /** Another store on the same database (PostgreSQL: standing for a second process). */
  async function another(): Promise<RelayStore> {
    const s = await db.open();
    extra.push(s);
    return s;
  }

  it('opens with a schema version and refuses a newer schema', async () => {
    expect(store.kind).toBe(backend.name);
    expect(await db.query('SELECT version FROM relay_schema')).toEqual([{ version: 1 }]);
    await store.close();
    store = await db.open();
    expect(await db.query('SELECT version FROM relay_schema')).toEqual([{ version: 1 }]);
    await store.close();
    await db.query('UPDATE relay_schema SET version = 99');
    await expect(db.open()).rejects.toBeInstanceOf(SchemaTooNewError);
    await db.query('UPDATE relay_schema SET version = 1');
    store = await db.open();
  });

  it('keeps meta values, the first one set winning', async () => {
    expect(await store.getMeta('node_secret')).toBeNull();
    expect(await store.initMeta('node_secret', 'first')).toBe('first');
    expect(await store.initMeta('node_secret', 'second')).toBe('first');
    expect(await store.getMeta('node_secret')).toBe('first');
  });

  describe('tenants', () => {
    it('adds tenants and finds them by host and id', async () => {
      const tenant = await store.addTenant({ host: 'Kim.Relay.Test', origin: 'https://kim.relay.test', codeHash: sha256('c'), codeExpiresAt: T0 + 1000, quotaBytes: 5000, now: T0 });
      expect(tenant).toEqual({ id: expect.any(String), host: 'kim.relay.test', origin: 'https://kim.relay.test', publicKey: null, enrolledAt: null, createdAt: T0, quotaBytes: 5000, clients: false });
      expect(await store.tenantByHost('kim.relay.test')).toEqual(tenant);
      expect(await store.tenantByHost('KIM.relay.test')).toEqual(tenant);
      expect(await store.tenantById(tenant.id)).toEqual(tenant);
      expect(await store.tenantByHost('other.relay.test')).toBeNull();
      expect(await store.tenantById('no-such-id')).toBeNull();
    });

    it('refuses a second tenant with the same host', async () => {
      await addTenant(store, 'kim.relay.test');
      await expect(addTenant(store, 'KIM.relay.test')).rejects.toBeInstanceOf(TenantExistsError);
      expect(await store.listTenants()).toHaveLength(1);
    });

    it('lists tenants by host with their usage', async () => {
      const b = await addTenant(store, 'b.relay.test', 7000);
      const a = await addTenant(store, 'a.relay.test');
      await store.accept(b, message('Create', { bytes: 400 }), ROOMY);
      await store.accept(b, message('Like', { bytes: 500 }), ROOMY);
      // Over quota with nothing lower to shed: shed itself.
      await store.accept(b, message('Like', { bytes: 700 }), { quotaBytes: 1000, dedupeSince: 0 });
      await store.putCache(b, { key: '/users/b', status: 200, contentType: 'application/activity+json', body: Buffer.alloc(123), updatedAt: T0 });
      const list = await store.listTenants();
      expect(list.map((t) => t.host)).toEqual(['a.relay.test', 'b.relay.test']);
      expect(list[0]).toMatchObject({ id: a, backlogCount: 0, backlogBytes: 0, cacheBytes: 0, shed: {} });
      expect(list[1]).toMatchObject({ id: b, quotaBytes: 7000, backlogCount: 2, backlogBytes: 900, cacheBytes: 123, shed: { Like: 1 } });
      expect(await store.tenantsWithBacklog()).toEqual(new Set([b]));
    });

    it('removes a tenant with everything it holds and nothing of another', async () => {
      const kim = await addTenant(store, 'kim.relay.test');
      const ana = await addTenant(store, 'ana.relay.test');
      const shared = message('Create', { id: 'https://peer.test/shared' });
      for (const id of [kim, ana]) {
        await store.accept(id, shared, ROOMY);
        await store.accept(id, message('Like', { bytes: 1000 }), { quotaBytes: 500, dedupeSince: 0 });
        await store.putCache(id, { key: '/users/x', status: 200, contentType: 'text/plain', body: Buffer.from(id), updatedAt: T0 });
        await store.claimTunnel(id, `node-${id}`, T0);
      }
      expect(await store.removeTenant('KIM.relay.test')).toBe(true);
      expect(await store.removeTenant('kim.relay.test')).toBe(false);
      expect(await store.tenantById(kim)).toBeNull();
      expect(await store.getCache(kim, '/users/x')).toBeNull();
      expect(await store.tunnelHolder(kim)).toBeNull();
      expect(await store.shedCounts(kim)).toEqual({});
      for (const table of ['inbound', 'seen', 'shed_counts', 'cache', 'tunnels']) {
        expect(await db.query(`SELECT tenant_id FROM ${table} WHERE tenant_id = ?`, [kim])).toEqual([]);
      }
      // The other tenant keeps all of its own.
      expect(await queued(store, ana)).toEqual([1]);
      expect((await store.getCache(ana, '/users/x'))?.body.toString()).toBe(ana);
      expect(await store.tunnelHolder(ana)).toBe(`node-${ana}`);
      expect(await store.shedCounts(ana)).toEqual({ Like: 1 });
      expect(await store.accept(ana, shared, ROOMY)).toEqual({ kind: 'duplicate' });
      // The host can be given out again, to a tenant that starts empty.
      const again = await addTenant(store, 'kim.relay.test');
      expect(again).not.toBe(kim);
      expect(await store.accept(again, shared, ROOMY)).toEqual({ kind: 'stored', seq: 1, shed: [] });
    });

    it('sets quotas', async () => {
      await addTenant(store, 'kim.relay.test', 1000);
      expect(await store.setQuota('kim.relay.test', 2000)).toBe(true);
      expect((await store.tenantByHost('kim.relay.test'))?.quotaBytes).toBe(2000);
      expect(await store.setQuota('nobody.relay.test', 2000)).toBe(false);
    });

    it('keeps whether a tenant wants its client API carried', async () => {
      const id = await addTenant(store, 'kim.relay.test');
      expect((await store.tenantById(id))?.clients).toBe(false);
      await store.setClients(id, true);
      expect((await store.tenantByHost('kim.relay.test'))?.clients).toBe(true);
      await store.setClients(id, false);
      expect((await store.tenantById(id))?.clients).toBe(false);
    });
  });

  describe('enrolment', () => {
    it('takes a code once', async () => {
      const id = await addTenant(store, 'kim.relay.test');
      const enrolled = await store.enrol(sha256('code-kim.relay.test'), 'KEY1', T0 + 10);
      expect(enrolled).toMatchObject({ id, publicKey: 'KEY1', enrolledAt: T0 + 10 });
      expect(await store.tenantById(id)).toEqual(enrolled);
      expect(await store.enrol(sha256('code-kim.relay.test'), 'KEY2', T0 + 20)).toBeNull();
      expect((await store.tenantById(id))?.publicKey).toBe('KEY1');
    });

    it('refuses an expired code, and takes a renewed one, the old key staying until then', async () => {
      await addTenant(store, 'kim.relay.test');
      expect(await store.enrol(sha256('code-kim.relay.test'), 'KEY1', T0 + 3_600_000)).toBeNull();
      expect(await store.renewCode('kim.relay.test', sha256('new-code'), T0 + 7_200_000)).toBe(true);
      expect(await store.renewCode('nobody.relay.test', sha256('x'), T0 + 7_200_000)).toBe(false);
      expect(await store.enrol(sha256('code-kim.relay.test'), 'KEY1', T0)).toBeNull();
      expect((await store.enrol(sha256('new-code'), 'KEY1', T0 + 3_600_000))?.publicKey).toBe('KEY1');
      await store.renewCode('kim.relay.test', sha256('third'), T0 + 7_200_000);
      expect((await store.tenantByHost('kim.relay.test'))?.publicKey).toBe('KEY1');
      expect((await store.enrol(sha256('third'), 'KEY2', T0 + 3_600_001))?.publicKey).toBe('KEY2');
    });

    it('stores the hash of the code, and forgets it once used', async () => {
      const id = await addTenant(store, 'kim.relay.test');
      expect(await db.query('SELECT code_hash FROM tenants WHERE id = ?', [id])).toEqual([{ code_hash: sha256('code-kim.relay.test') }]);
      // The store matches what it was given: the code itself is no key.
      expect(await store.enrol('code-kim.relay.test', 'KEY1', T0)).toBeNull();
      await store.enrol(sha256('code-kim.relay.test'), 'KEY1', T0);
      expect(await db.query('SELECT code_hash, code_expires_at FROM tenants WHERE id = ?', [id])).toEqual([{ code_hash: null, code_expires_at: null }]);
    });
  });

  describe('accept', () => {
    it('numbers messages per tenant, each tenant on its own', async () => {
      const kim = await addTenant(store, 'kim.relay.test');
      const ana = await addTenant(store, 'ana.relay.test');
      const seqs = [];
      for (const id of [kim, kim, ana, kim, ana]) {
        const outcome = await store.accept(id, message('Create'), ROOMY);
        seqs.push(outcome.kind === 'stored' ? outcome.seq : null);
      }
      expect(seqs).toEqual([1, 2, 1, 3, 2]);
      expect(await queued(store, kim)).toEqual([1, 2, 3]);
      expect(await queued(store, ana)).toEqual([1, 2]);
    });

    it('keeps a message as it was received', async () => {
      const kim = await addTenant(store, 'kim.relay.test');
      const m = { ...message('Create'), receivedAt: T0 + 5, headers: [['Signature', 'a'], ['signature', 'b'], ['X-Ü', 'é']] as [string, string][], path: '/inbox?x=1' };
      await store.accept(kim, m, ROOMY);
      expect(await store.pending(kim, 0, 10, T0 + 5)).toEqual([{ ...m, seq: 1, attempts: 0 }]);
    });

    it('finds repeated bodies within the window only', async () => {
      const kim = await addTenant(store, 'kim.relay.test');
      const ana = await addTenant(store, 'ana.relay.test');
      const first = message('Create', { id: 'https://peer.test/c/1', receivedAt: T0 });
      expect(await store.accept(kim, first, ROOMY)).toEqual({ kind: 'stored', seq: 1, shed: [] });
      expect(await store.accept(kim, { ...first, receivedAt: T0 + 100 }, { quotaBytes: 1e9, dedupeSince: T0 })).toEqual({ kind: 'duplicate' });
      // Acknowledged, it is still a repeat.
      await store.ack(kim, [1]);
      expect(await store.accept(kim, { ...first, receivedAt: T0 + 200 }, { quotaBytes: 1e9, dedupeSince: T0 })).toEqual({ kind: 'duplicate' });
      expect(await store.backlog(kim)).toEqual({ count: 0, bytes: 0, oldestAt: null });
      // Another tenant has its own window.
      expect(await store.accept(ana, first, ROOMY)).toMatchObject({ kind: 'stored', seq: 1 });
      // Past the window, it is stored again, and the window starts over from that copy.
      expect(await store.accept(kim, { ...first, receivedAt: T0 + 300 }, { quotaBytes: 1e9, dedupeSince: T0 + 1 })).toEqual({ kind: 'stored', seq: 2, shed: [] });
      expect(await store.accept(kim, { ...first, receivedAt: T0 + 400 }, { quotaBytes: 1e9, dedupeSince: T0 + 250 })).toEqual({ kind: 'duplicate' });
    });

    it('sheds over quota: lowest priority first, then oldest, never priority 2, counting per type', async () => {
      const kim = await addTenant(store, 'kim.relay.test');
      const quota = { quotaBytes: 4000, dedupeSince: 0 };
      const accept = (type: string, bytes = 1000) => store.accept(kim, message(type, { bytes }), quota);
      for (const type of ['Like', 'Create', 'Announce', 'Follow']) expect(await accept(type)).toMatchObject({ kind: 'stored' });
      // Full. A normal message sheds the oldest of the lowest priority.
      expect(await accept('Create')).toEqual({ kind: 'stored', seq: 5, shed: [{ seq: 1, activityType: 'Like' }] });
      // A low one sheds only low ones: the Announce, then the Like just stored.
      expect(await accept('Like')).toEqual({ kind: 'stored', seq: 6, shed: [{ seq: 3, activityType: 'Announce' }] });
      expect(await accept('Like')).toEqual({ kind: 'stored', seq: 7, shed: [{ seq: 6, activityType: 'Like' }] });
      // A Follow twice the size sheds the Like, then the oldest Create.
      expect(await accept('Follow', 2000)).toEqual({
        kind: 'stored',
        seq: 8,
        shed: [
          { seq: 7, activityType: 'Like' },
          { seq: 2, activityType: 'Create' },
        ],
      });
      // No low message left: a Like is shed itself, and nothing else.
      expect(await accept('Like')).toEqual({ kind: 'shed' });
      expect(await queued(store, kim)).toEqual([4, 5, 8]);
      // Keep messages only: a Delete sheds the Create; then a Move is stored over quota.
      expect(await accept('Delete')).toEqual({ kind: 'stored', seq: 9, shed: [{ seq: 5, activityType: 'Create' }] });
      expect(await accept('Move')).toEqual({ kind: 'stored', seq: 10, shed: [] });
      expect(await accept('Create')).toEqual({ kind: 'shed' });
      expect(await store.backlog(kim)).toMatchObject({ count: 4, bytes: 5000 });
      // A keep message that does not fit even so sheds everything below it.
      await store.accept(kim, message('Like', { bytes: 500 }), ROOMY);
      await store.accept(kim, message('Create', { bytes: 500 }), ROOMY);
      expect(await accept('Undo', 3000)).toEqual({
        kind: 'stored',
        seq: 13,
        shed: [
          { seq: 11, activityType: 'Like' },
          { seq: 12, activityType: 'Create' },
        ],
      });
      const left = await store.pending(kim, 0, 100, T0);
      expect(left.map((m) => [m.seq, m.activityType])).toEqual([
        [4, 'Follow'],
        [8, 'Follow'],
        [9, 'Delete'],
        [10, 'Move'],
        [13, 'Undo'],
      ]);
      expect(left.every((m) => m.priority === PRIORITIES.keep)).toBe(true);
      expect(await store.backlog(kim)).toEqual({ count: 5, bytes: 8000, oldestAt: T0 });
      expect(await store.shedCounts(kim)).toEqual({ Announce: 1, Create: 4, Like: 5 });
    });

    it('refuses an unknown tenant', async () => {
      await expect(store.accept('no-such-tenant', message('Create'), ROOMY)).rejects.toThrow(/no tenant/);
      await expect(store.backlog('no-such-tenant')).rejects.toThrow(/no tenant/);
    });
  });

  describe('replay', () => {
    it('hands out pending messages in order after a seq, due ones only, counting deferrals', async () => {
      const kim = await addTenant(store, 'kim.relay.test');
      for (let i = 0; i < 5; i++) await store.accept(kim, message('Create', { receivedAt: T0 + i }), ROOMY);
      expect((await store.pending(kim, 0, 3, T0)).map((m) => m.seq)).toEqual([1, 2, 3]);
      expect((await store.pending(kim, 2, 10, T0)).map((m) => m.seq)).toEqual([3, 4, 5]);
      await store.defer(kim, 2, T0 + 1000);
      expect((await store.pending(kim, 0, 10, T0 + 999)).map((m) => m.seq)).toEqual([1, 3, 4, 5]);
      const due = await store.pending(kim, 0, 2, T0 + 1000);
      expect(due.map((m) => [m.seq, m.attempts])).toEqual([
        [1, 0],
        [2, 1],
      ]);
      await store.defer(kim, 2, T0 + 2000);
      expect((await store.pending(kim, 1, 1, T0 + 2000))[0]).toMatchObject({ seq: 2, attempts: 2 });
    });

    it('forgets acknowledged messages and keeps the backlog', async () => {
      const kim = await addTenant(store, 'kim.relay.test');
      for (let i = 0; i < 4; i++) await store.accept(kim, message('Create', { bytes: 200 * (i + 1), receivedAt: T0 + i }), ROOMY);
      expect(await store.backlog(kim)).toEqual({ count: 4, bytes: 2000, oldestAt: T0 });
      await store.ack(kim, [1, 3, 3, 99]);
      expect(await queued(store, kim)).toEqual([2, 4]);
      expect(await store.backlog(kim)).toEqual({ count: 2, bytes: 1200, oldestAt: T0 + 1 });
      await store.ack(kim, [1, 2, 4]);
      await store.ack(kim, []);
      expect(await store.backlog(kim)).toEqual({ count: 0, bytes: 0, oldestAt: null });
      expect((await store.listTenants())[0]).toMatchObject({ backlogCount: 0, backlogBytes: 0 });
    });
  });

  it('expires old messages (counted as shed) and old repeat hashes, in every tenant', async () => {
    const kim = await addTenant(store, 'kim.relay.test');
    const ana = await addTenant(store, 'ana.relay.test');
    const old = message('Create', { receivedAt: T0, bytes: 300 });
    await store.accept(kim, old, ROOMY);
    await store.accept(kim, message('Create', { receivedAt: T0 + 10, bytes: 400 }), ROOMY);
    await store.accept(ana, message('Create', { receivedAt: T0 + 5 }), ROOMY);
    await store.accept(ana, message('Create', { receivedAt: T0 + 20 }), ROOMY);
    expect(await store.expire(T0 + 10, T0 + 1)).toBe(2);
    expect(await queued(store, kim)).toEqual([2]);
    expect(await queued(store, ana)).toEqual([2]);
    expect(await store.backlog(kim)).toEqual({ count: 1, bytes: 400, oldestAt: T0 + 10 });
    expect(await store.shedCounts(kim)).toEqual({ expired: 1 });
    expect(await store.shedCounts(ana)).toEqual({ expired: 1 });
    // The hash of `old` is gone (received before T0 + 1), that of ana's first is kept.
    expect(await store.accept(kim, { ...old, receivedAt: T0 + 30 }, { quotaBytes: 1e9, dedupeSince: 0 })).toMatchObject({ kind: 'stored', seq: 3 });
    expect(await db.query('SELECT tenant_id FROM seen WHERE received_at < ?', [T0 + 10])).toEqual([{ tenant_id: ana }]);
    expect(await store.expire(T0, T0)).toBe(0);
  });

  it('caches documents per tenant', async () => {
    const kim = await addTenant(store, 'kim.relay.test');
    const ana = await addTenant(store, 'ana.relay.test');
    const actor = { key: '/users/kim', status: 200 as const, contentType: 'application/activity+json', body: Buffer.from('{"type":"Person"}'), updatedAt: T0 };
    await store.putCache(kim, actor);
    await store.putCache(kim, { ...actor, key: '/.well-known/webfinger?resource=acct:kim@kim.relay.test', body: Buffer.alloc(50) });
    expect(await store.getCache(kim, '/users/kim')).toEqual(actor);
    expect(await store.getCache(ana, '/users/kim')).toBeNull();
    expect(await store.cacheBytes(kim)).toBe(actor.body.length + 50);
    const tombstone = { ...actor, status: 410 as const, body: Buffer.from('{"type":"Tombstone"}'), updatedAt: T0 + 1 };
    await store.putCache(kim, tombstone);
    expect(await store.getCache(kim, '/users/kim')).toEqual(tombstone);
    expect(await store.cacheBytes(kim)).toBe(tombstone.body.length + 50);
    await store.putCache(ana, { ...actor, body: Buffer.alloc(7) });
    await store.dropCache(kim, '/users/kim');
    await store.dropCache(kim, '/users/nobody');
    expect(await store.getCache(kim, '/users/kim')).toBeNull();
    expect(await store.cacheBytes(kim)).toBe(50);
    expect(await store.getCache(ana, '/users/kim')).toMatchObject({ body: Buffer.alloc(7) });
    expect(await store.cacheBytes(ana)).toBe(7);
  });

  it('records who holds a tunnel, and the relay nodes', async () => {
    const kim = await addTenant(store, 'kim.relay.test');
    expect(await store.tunnelHolder(kim)).toBeNull();
    await store.claimTunnel(kim, 'node-a', T0);
    await store.claimTunnel(kim, 'node-b', T0 + 10);
    expect(await store.tunnelHolder(kim)).toBe('node-b');
    // A claim older than the holder's comes too late.
    await store.claimTunnel(kim, 'node-a', T0 + 5);
    expect(await store.tunnelHolder(kim)).toBe('node-b');
    await store.releaseTunnel(kim, 'node-a');
    expect(await store.tunnelHolder(kim)).toBe('node-b');
    await store.releaseTunnel(kim, 'node-b');
    expect(await store.tunnelHolder(kim)).toBeNull();

    expect(await store.nodeById('node-a')).toBeNull();
    await store.heartbeatNode({ id: 'node-a', url: 'http://10.0.0.5:8080', seenAt: T0 });
    await store.heartbeatNode({ id: 'node-a', url: 'http://10.0.0.6:8080', seenAt: T0 + 20 });
    expect(await store.nodeById('node-a')).toEqual({ id: 'node-a', url: 'http://10.0.0.6:8080', seenAt: T0 + 20 });
  });

  it('delivers signals to listeners until they stop', async () => {
    const seen: RelaySignal[] = [];
    const other: RelaySignal[] = [];
    const stop = await store.onSignal((s) => seen.push(s));
    await store.onSignal((s) => other.push(s));
    await store.signal({ kind: 'inbound', tenantId: 't1' });
    await waitFor(() => seen.length === 1 && other.length === 1);
    await stop();
    await store.signal({ kind: 'tunnel', tenantId: 't1', nodeId: 'n2' });
    await waitFor(() => other.length === 2);
    expect(seen).toEqual([{ kind: 'inbound', tenantId: 't1' }]);
    expect(other).toEqual([
      { kind: 'inbound', tenantId: 't1' },
      { kind: 'tunnel', tenantId: 't1', nodeId: 'n2' },
    ]);
  });

  it('gives 200 concurrent accepts 200 distinct sequence numbers without gaps', async () => {
    const kim = await addTenant(store, 'kim.relay.test');
    // PostgreSQL: from two stores at once, as from two relay processes.
    const stores = backend.name === 'postgres' ? [store, await another()] : [store];
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => (stores[i % stores.length] as RelayStore).accept(kim, message('Create'), ROOMY)));
    const seqs = outcomes.map((o) => (o.kind === 'stored' ? o.seq : 0)).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(await queued(store, kim)).toEqual(seqs);
    expect((await store.backlog(kim)).count).toBe(200);
  });

  it('sheds in arrival order when concurrent accepts pass the quota', async () => {
    const kim = await addTenant(store, 'kim.relay.test');
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => store.accept(kim, message('Like'), { quotaBytes: 3000, dedupeSince: 0 })));
    expect(outcomes.map((o) => (o.kind === 'stored' ? o.seq : o.kind))).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(outcomes.flatMap((o) => (o.kind === 'stored' ? o.shed.map((s) => s.seq) : []))).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(await queued(store, kim)).toEqual(Array.from({ length: 10 }, (_, i) => i + 41));
    expect(await store.backlog(kim)).toMatchObject({ count: 10, bytes: 3000 });
    expect(await store.shedCounts(kim)).toEqual({ Like: 40 });
  });

  const context: SuiteContext = {
    db: () => db,
    store: () => store,
    setStore: (s) => {
      store = s;
    },
    another,
  };
  backendTests(backend.name, context);
  durabilityTests(backend.name, context);
});
