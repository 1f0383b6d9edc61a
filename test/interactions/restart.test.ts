import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { TestClient } from '../helpers/client.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { post, waitFor } from './helpers.js';

const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The scheduler finds its work in the database: what was due while the instance was stopped is
 * done at the next start, and what was done before a restart is not done again.
 */
describe('the job scheduler across restarts', () => {
  const dirs: string[] = [];
  const running: TestInstance[] = [];

  function dataDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-restart-'));
    dirs.push(dir);
    return dir;
  }
  async function start(dir: string): Promise<TestInstance> {
    const inst = await startInstance({ dataDir: dir });
    running.push(inst);
    return inst;
  }
  async function stop(inst: TestInstance): Promise<void> {
    running.splice(running.indexOf(inst), 1);
    await inst.close();
  }

  afterEach(async () => {
    resetClock();
    for (const inst of running.splice(0)) await inst.close();
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('publishes, once, a status that fell due while the instance was stopped', async () => {
    const dir = dataDir();
    const first = await start(dir);
    const alice = await first.createUser('alice');
    const at = Date.now() + 10 * MINUTE;
    const res = await alice.client.post('/api/v1/statuses', { status: 'written before the restart', scheduled_at: new Date(at).toISOString() });
    expect(res.status, res.text).toBe(200);
    const scheduledId: string = res.body.id;
    await stop(first);

    setClockTo(at + MINUTE);
    const second = await start(dir);
    // Subscribed before the scheduler's first run (it runs on the next turn of the event loop).
    const created: string[] = [];
    second.deps.events.on('status.created', (p) => created.push(p.statusId));
    const statusId = await waitFor(() => created[0]);
    // The same token works on the restarted instance: it is in the database.
    const client = new TestClient(second.url, alice.token);
    const status = await client.get(`/api/v1/statuses/${statusId}`);
    expect(status.status).toBe(200);
    expect(status.body.content).toContain('written before the restart');
    expect((await client.get(`/api/v1/scheduled_statuses/${scheduledId}`)).status).toBe(404);
    await stop(second);

    // A third start finds nothing left to publish.
    const third = await start(dir);
    const again: string[] = [];
    third.deps.events.on('status.created', (p) => again.push(p.statusId));
    await sleep(1500);
    expect(again).toEqual([]);
    const account = await new TestClient(third.url, alice.token).get(`/api/v1/accounts/${alice.accountId}`);
    expect(account.body.statuses_count).toBe(1);
  });

  it("announces a poll's end exactly once, across a restart, and one that ended while stopped", async () => {
    const dir = dataDir();
    const first = await start(dir);
    const alice = await first.createUser('alice');
    const ended: string[] = [];
    first.deps.events.on('poll.ended', (p) => ended.push(p.pollId));
    const early = await post(alice.client, { status: 'short poll', poll: { options: ['a', 'b'], expires_in: 300 } });
    const late = await post(alice.client, { status: 'longer poll', poll: { options: ['c', 'd'], expires_in: 900 } });
    await sleep(1200);
    expect(ended).toEqual([]);

    setClockTo(Date.now() + 301_000);
    await waitFor(() => (ended.length > 0 ? true : undefined));
    expect(ended).toEqual([early.poll.id]);
    await sleep(1200);
    expect(ended).toEqual([early.poll.id]);
    await stop(first);

    // The second poll ends while the instance is stopped.
    setClockTo(Date.now() + 901_000);
    const second = await start(dir);
    const after: string[] = [];
    second.deps.events.on('poll.ended', (p) => after.push(p.pollId));
    await waitFor(() => (after.length > 0 ? true : undefined));
    await sleep(1200);
    expect(after).toEqual([late.poll.id]);
    const poll = await new TestClient(second.url, alice.token).get(`/api/v1/polls/${early.poll.id}`);
    expect(poll.body.expired).toBe(true);
  });
});
