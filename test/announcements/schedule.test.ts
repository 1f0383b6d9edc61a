import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TestClient } from '../helpers/client.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { closeSockets, openSocket } from '../streaming/helpers.js';
import { announce, fromNow, owner, until } from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Scheduled announcements are a durable job: the schedule is in the database, and survives a restart. */
describe('scheduled announcements across a restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-announcement-schedule-'));
  let inst: TestInstance | null = null;
  afterAll(async () => {
    closeSockets();
    await inst?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes at start what came due while stopped, and later what comes due after', async () => {
    inst = await startInstance({ dataDir: dir });
    const kim = await owner(inst, 'kim');
    const alice = await inst.createUser('alice');
    // Stopped at once: the first comes due while the server is stopped, the second after it is back.
    const whileStopped = await announce(kim.client, { text: 'Due while the server is stopped', scheduled_at: fromNow(5000) });
    const afterRestart = await announce(kim.client, { text: 'Due once it runs again', scheduled_at: fromNow(15_000) });
    await inst.close();
    inst = null;
    expect([whileStopped.published, afterRestart.published]).toEqual([false, false]);
    await sleep(Math.max(0, Date.parse(whileStopped.scheduled_at) - Date.now() + 300));

    const restartedAt = Date.now();
    inst = await startInstance({ dataDir: dir });
    const asAlice = new TestClient(inst.url, alice.token);
    const asKim = new TestClient(inst.url, kim.token);
    const socket = await openSocket(inst, alice.token);
    await socket.subscribe('user');
    const listedIds = async () => (await asAlice.get('/api/v1/announcements')).body.map((a: { id: string }) => a.id);
    await until(async () => (await listedIds()).includes(whileStopped.id), 5000, 'the announcement that came due while stopped');
    expect(await listedIds()).toEqual([whileStopped.id]);
    const first = (await asKim.get(`/api/v1/admin/announcements/${whileStopped.id}`)).body;
    expect(first).toMatchObject({ published: true, scheduled_at: null });
    // Published by the restarted server (the first was stopped before it came due).
    expect(Date.parse(first.published_at)).toBeGreaterThanOrEqual(restartedAt);

    const published = await socket.next((e) => e.event === 'announcement' && e.payload.id === afterRestart.id, 25_000);
    expect(published.payload.content).toBe('<p>Due once it runs again</p>');
    expect(Date.parse(published.payload.published_at)).toBeGreaterThanOrEqual(Date.parse(afterRestart.scheduled_at));
    expect(await listedIds()).toEqual([whileStopped.id, afterRestart.id]);
    // Published once: one event, and its time stays.
    await sleep(1200);
    expect(socket.matching((e) => e.event === 'announcement' && e.payload.id === afterRestart.id)).toHaveLength(1);
    const second = (await asKim.get(`/api/v1/admin/announcements/${afterRestart.id}`)).body;
    expect(second.published_at).toBe(published.payload.published_at);
  }, 60_000);
});
