// Tests of test/relay/store.test.ts that belong to one backend: PostgreSQL's signals between
// processes and its batches of accepts, SQLite's one-process lock and its group commit.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openRelayStore } from '../../relay/store/index.js';
import { TenantExistsError, type RelaySignal } from '../../relay/store/types.js';
import { addTenant, message, queued, ROOMY, waitFor, type SuiteContext } from './store-rig.js';

/** Registers the tests of one backend (inside its describe). */
export function backendTests(kind: 'sqlite' | 'postgres', ctx: SuiteContext): void {
  if (kind === 'postgres') {
    it('is what openRelayStore opens for a postgres:// or postgresql:// URL', async () => {
      const url = ctx.db().target;
      const store = await openRelayStore({ dataDir: '/nonexistent', databaseUrl: url.replace(/^postgres:/, 'postgresql:') });
      try {
        expect(store.kind).toBe('postgres');
        await addTenant(store, 'kim.relay.test');
        expect(await ctx.store().tenantByHost('kim.relay.test')).not.toBeNull();
      } finally {
        await store.close();
      }
      await expect(openRelayStore({ dataDir: '/nonexistent', databaseUrl: 'mysql://db.example/relay' })).rejects.toThrow(/unsupported database URL/);
    });

    it('fails a delivery alone when it fails among concurrent ones', async () => {
      const store = ctx.store();
      const kim = await addTenant(store, 'kim.relay.test');
      // PostgreSQL text cannot hold NUL: this one cannot be stored, and it shares a batch.
      const bad = { ...message('Create'), path: '/inbox\u0000' };
      const results = await Promise.allSettled([message('Create'), message('Create'), bad, message('Create')].map((m) => store.accept(kim, m, ROOMY)));
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect(await queued(store, kim)).toEqual([1, 2, 3]);
    });

    it('signals every process sharing the database, and listens again after losing its connection', async () => {
      const store = ctx.store();
      const second = await ctx.another();
      const heard: RelaySignal[] = [];
      await second.onSignal((s) => heard.push(s));
      await store.signal({ kind: 'tunnel', tenantId: 'kim', nodeId: 'node-a' });
      await waitFor(() => heard.length === 1);
      expect(heard).toEqual([{ kind: 'tunnel', tenantId: 'kim', nodeId: 'node-a' }]);
      const killed = await ctx.db().query("SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'hearth-relay-listen'");
      expect(killed).toEqual([{ ok: true }]);
      // Signals sent while it reconnects are lost: keep sending until one arrives.
      await waitFor(async () => {
        await store.signal({ kind: 'inbound', tenantId: 'kim' });
        return heard.length > 1;
      }, 15_000);
      expect(heard[heard.length - 1]).toEqual({ kind: 'inbound', tenantId: 'kim' });
    });
    return;
  }

  it('is what openRelayStore opens without a database URL, in the data directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-relay-data-'));
    try {
      const dataDir = join(dir, 'made', 'on', 'demand');
      const serving = await openRelayStore({ dataDir, databaseUrl: null });
      expect(serving.kind).toBe('sqlite');
      expect(existsSync(join(dataDir, 'relay.sqlite3'))).toBe(true);
      await expect(openRelayStore({ dataDir })).rejects.toThrow(/another relay process/);
      // An admin command beside the serving relay shares the file without the lock.
      const admin = await openRelayStore({ dataDir, serving: false });
      await addTenant(admin, 'kim.relay.test');
      await admin.close();
      expect(await serving.tenantByHost('kim.relay.test')).not.toBeNull();
      await serving.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps a second relay process off the same file', async () => {
    await expect(ctx.db().open()).rejects.toThrow(/another relay process is using .*relay\.sqlite3/);
    await ctx.store().close();
    ctx.setStore(await ctx.db().open());
  });

  it('commits concurrent writes together', async () => {
    const store = ctx.store();
    const kim = await addTenant(store, 'kim.relay.test');
    // WAL frames written by a phase: a passive checkpoint reports them, and the first commit
    // after a complete checkpoint starts the WAL over.
    const framesSince = async () => Number((await ctx.db().query('PRAGMA wal_checkpoint(PASSIVE)'))[0]?.log);
    await framesSince();
    for (let i = 0; i < 40; i++) await store.accept(kim, message('Create'), ROOMY);
    const oneByOne = await framesSince();
    await Promise.all(Array.from({ length: 40 }, () => store.accept(kim, message('Create'), ROOMY)));
    const together = await framesSince();
    expect(together * 5).toBeLessThan(oneByOne);
  });

  it('fails a write alone when it throws in a group', async () => {
    const store = ctx.store();
    await addTenant(store, 'kim.relay.test');
    const results = await Promise.allSettled([addTenant(store, 'ana.relay.test'), addTenant(store, 'kim.relay.test'), store.initMeta('k', 'v')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(TenantExistsError);
    expect((await store.listTenants()).map((t) => t.host)).toEqual(['ana.relay.test', 'kim.relay.test']);
    expect(await store.getMeta('k')).toBe('v');
  });
}
