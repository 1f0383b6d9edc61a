import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SEARCH_MARK_KEY } from '../../api/core/timelines/repair.js';
import { getSetting } from '../../api/db/repos/settings.js';
import { now, resetClock, setClockTo } from '../../api/util/clock.js';
import type { TestClient } from '../helpers/client.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';

async function post(client: TestClient, status: string): Promise<string> {
  const res = await client.post('/api/v1/statuses', { status });
  expect(res.status, res.text).toBe(200);
  return res.body.id as string;
}

function indexed(inst: TestInstance, id: string): boolean {
  return inst.deps.db.query('SELECT rowid FROM statuses_fts WHERE rowid = @id').get({ id }) !== undefined;
}

function inFeed(inst: TestInstance, accountId: string, id: string): boolean {
  return inst.deps.db.query('SELECT 1 FROM home_feed WHERE account_id = @account_id AND status_id = @status_id').get({ account_id: accountId, status_id: id }) !== undefined;
}

/** What a power loss can take from derived rows (feeds, search index) is put back at start-up. */
describe('start-up repair of feeds and the search index', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-repair-'));
  afterAll(() => {
    resetClock();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('re-fans-out and re-indexes recent statuses, back-fills the index above its mark, idempotently', async () => {
    let inst = await startInstance({ dataDir });
    const alice = await inst.createUser('alice');
    const bob = await inst.createUser('bob');
    expect((await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`)).status).toBe(200);
    const ids = [await post(bob.client, 'zephyr one'), await post(bob.client, 'zephyr two')];
    const feedCount = () => Number(inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM home_feed').get()?.n);
    const before = feedCount();
    // What an interrupted NORMAL commit loses: the feed rows and index entries of the newest statuses.
    for (const id of ids) {
      inst.deps.db.query('DELETE FROM home_feed WHERE status_id = @status_id').run({ status_id: id });
      inst.deps.db.query('DELETE FROM statuses_fts WHERE rowid = @id').run({ id });
    }
    expect(indexed(inst, ids[0] ?? '')).toBe(false);
    await inst.close();

    inst = await startInstance({ dataDir });
    // Clients of the restarted instance (a new port), with the users' tokens.
    let aliceClient = inst.anon.withToken(inst.tokenFor(alice, 'read write'));
    let bobClient = inst.anon.withToken(inst.tokenFor(bob, 'read write'));
    for (const id of ids) {
      expect(inFeed(inst, alice.accountId, id)).toBe(true);
      expect(inFeed(inst, bob.accountId, id)).toBe(true);
      expect(indexed(inst, id)).toBe(true);
    }
    // Nothing doubled; the mark now stands at the newest status.
    expect(feedCount()).toBe(before);
    expect(getSetting<string>(inst.deps.db, SEARCH_MARK_KEY)).toBe(ids[1]);
    const home = await aliceClient.get('/api/v1/timelines/home');
    expect((home.body as { id: string }[]).map((s) => s.id)).toEqual([...ids].reverse());
    // Authors find their own statuses.
    const found = await bobClient.get('/api/v2/search?q=zephyr&type=statuses');
    expect((found.body.statuses as { id: string }[]).map((s) => s.id).sort()).toEqual([...ids].sort());

    // Past the recent window, only the back-fill above the mark runs: a status below the mark
    // that lost its entry is not looked at (cheap starts), one above it is indexed again.
    const later = await post(bobClient, 'zephyr three');
    for (const id of [ids[0] ?? '', later]) inst.deps.db.query('DELETE FROM statuses_fts WHERE rowid = @id').run({ id });
    inst.deps.db.query('DELETE FROM home_feed WHERE status_id = @status_id').run({ status_id: later });
    await inst.close();
    setClockTo(now() + 60 * 60_000);
    try {
      inst = await startInstance({ dataDir });
      aliceClient = inst.anon.withToken(inst.tokenFor(alice, 'read'));
      bobClient = aliceClient;
      expect((await aliceClient.get('/api/v1/timelines/home')).status).toBe(200);
      expect(indexed(inst, later)).toBe(true);
      expect(indexed(inst, ids[0] ?? '')).toBe(false);
      // Feeds are replayed only for the recent window.
      expect(inFeed(inst, alice.accountId, later)).toBe(false);
      expect(getSetting<string>(inst.deps.db, SEARCH_MARK_KEY)).toBe(later);
      await inst.close();
    } finally {
      resetClock();
    }
  });
});
