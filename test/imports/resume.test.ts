import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDataDir } from '../../api/app.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { eventually, freePort } from '../federation/helpers.js';
import { failuresOf, upload, waitFinished, type ImportEntity } from './helpers.js';

/**
 * A server that is slow to say it knows nobody: every WebFinger question is answered 404 after
 * a pause, and counted per account, so a test sees which rows an import asked about, and how often.
 */
async function slowServer(host: string, pauseMs: number): Promise<{ domain: string; asked: Map<string, number>; close(): Promise<void> }> {
  const asked = new Map<string, number>();
  const port = await freePort(host);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${host}`);
    if (url.pathname === '/.well-known/webfinger') {
      const resource = (url.searchParams.get('resource') ?? '').replace(/^acct:/, '');
      asked.set(resource, (asked.get(resource) ?? 0) + 1);
      setTimeout(() => res.writeHead(404).end(), pauseMs);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return {
    domain: `${host}:${port}`,
    asked,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('imports: a durable job', () => {
  let slow: Awaited<ReturnType<typeof slowServer>>;
  let dataDir: string;
  let inst: TestInstance | null = null;
  const host = '127.0.0.6';
  let port: number;

  beforeAll(async () => {
    slow = await slowServer('127.0.0.5', 300);
    dataDir = mkdtempSync(join(tmpdir(), 'hearth-import-resume-'));
    port = await freePort(host);
  });
  afterAll(async () => {
    await inst?.close();
    await slow.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // The same instance each time: same data directory, same origin.
  const start = () => startInstance({ dataDir, bind: host, port, origin: `http://${host}:${port}`, federationAllowLoopback: true });

  it('goes on after a restart where it stopped, without doing a row twice', async () => {
    inst = await start();
    const me = await inst.createUser('mover');
    for (const name of ['local1', 'local2']) await inst.createUser(name);
    const ghosts = Array.from({ length: 40 }, (_, i) => `ghost${i}@${slow.domain}`);
    const res = await upload(me.client, 'blocks', `${ghosts.join('\n')}\nlocal1\nlocal2\n`);
    expect(res.status).toBe(202);
    const id = res.body.id;
    // The instance closes while the job is halfway through.
    const midway = await eventually(async () => {
      const body = (await me.client.get<ImportEntity>(`/api/hearth/imports/${id}`)).body;
      return body.processed >= 8 && body.processed <= 24 ? body : null;
    }, 15_000);
    expect(midway.state).toBe('in_progress');
    await inst.close();
    inst = null;
    // What was done before the close, read from the data directory while no instance runs.
    const db = openDataDir(dataDir);
    const doneBefore = db.query<{ position: number }>("SELECT position FROM import_rows WHERE import_id = ? AND state <> 'pending'").all(id).map((r) => r.position);
    const counted = db.query<{ processed: number }>('SELECT processed FROM imports WHERE id = ?').get(id)?.processed;
    db.close();
    expect(doneBefore.length).toBe(counted);
    expect(doneBefore.length).toBeGreaterThanOrEqual(midway.processed);
    expect(doneBefore.length).toBeLessThan(42);

    inst = await start();
    const finished = await waitFinished(me.client, id, 20_000);
    expect(finished).toMatchObject({ state: 'finished', total: 42, processed: 42, imported: 2, failed: 40 });
    // The rows done before the close were not looked up again; the others were, once (twice for a
    // lookup that was in flight when the instance closed: it was dropped, and its row done after).
    for (const position of doneBefore) expect(slow.asked.get(ghosts[position - 1] ?? ''), `row ${position}`).toBe(1);
    for (const ghost of ghosts) expect(slow.asked.get(ghost) ?? 0, ghost).toBeGreaterThanOrEqual(1);
    const twice = ghosts.filter((g) => (slow.asked.get(g) ?? 0) > 1);
    expect(twice.length).toBeLessThanOrEqual(8);
    const failures = await failuresOf(me.client, id);
    expect(failures.map((f) => f.line)).toEqual(ghosts.map((_, i) => i + 1));
    expect(new Set(failures.map((f) => f.reason))).toEqual(new Set(['account_not_found']));
    expect(((await me.client.get('/api/v1/blocks')).body as { acct: string }[]).map((a) => a.acct).sort()).toEqual(['local1', 'local2']);
  }, 60_000);

  it('stops a cancelled import before its next rows; what was done stays done', async () => {
    inst ??= await start();
    const me = await inst.createUser('canceller');
    const ghosts = Array.from({ length: 40 }, (_, i) => `late${i}@${slow.domain}`);
    const res = await upload(me.client, 'mutes', ghosts.join('\n'));
    const id = res.body.id;
    await eventually(async () => (await me.client.get<ImportEntity>(`/api/hearth/imports/${id}`)).body.processed >= 8, 15_000);
    const cancelled = await me.client.delete<ImportEntity>(`/api/hearth/imports/${id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.state).toBe('cancelled');
    expect(cancelled.body.finished_at).not.toBeNull();
    const at = cancelled.body.processed;
    expect(at).toBeLessThan(40);
    // A batch in flight at the cancel is dropped: nothing more is counted.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await me.client.get<ImportEntity>(`/api/hearth/imports/${id}`)).body).toMatchObject({ state: 'cancelled', processed: at });
    const again = await me.client.delete(`/api/hearth/imports/${id}`);
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({ error: 'This import has already been cancelled' });
  }, 30_000);
});
