import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../api/db/connection.js';
import { migrate } from '../../api/db/migrate.js';
import { SqliteKvStore } from '../../api/federation/kv.js';
import { SqliteMessageQueue } from '../../api/federation/queue.js';

/**
 * The federation queue and key-value store share one commit per turn of the event loop: a write is
 * visible to their own reads at once, on disk (seen by another connection) once its promise
 * resolves, and the queue hands out each message once and deletes it after its handler.
 */
describe('federation group commit (queue and key-value store)', () => {
  let dir: string;
  let db: Db;
  let other: Db;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-group-commit-'));
    db = openDatabase(join(dir, 'hearth.sqlite3'));
    migrate(db);
    other = openDatabase(join(dir, 'hearth.sqlite3'));
  });
  afterAll(() => {
    other.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const onDisk = (key: string) => other.query<{ value: string }>('SELECT value FROM federation_kv WHERE key = ?').get(JSON.stringify(['t', key]))?.value;

  it('a key-value write is read back before its commit and is on disk when its promise resolves', async () => {
    const kv = new SqliteKvStore(db);
    const written = kv.set(['t', 'a'], { n: 1 });
    expect(await kv.get(['t', 'a'])).toEqual({ n: 1 });
    await written;
    expect(onDisk('a')).toBe('{"n":1}');
    const deleted = kv.delete(['t', 'a']);
    expect(await kv.get(['t', 'a'])).toBeUndefined();
    await deleted;
    expect(onDisk('a')).toBeUndefined();
  });

  it('compare-and-swap sees writes still waiting for their commit', async () => {
    const kv = new SqliteKvStore(db);
    const pending = kv.set(['t', 'b'], 1);
    expect(await kv.cas(['t', 'b'], 0, 5)).toBe(false);
    expect(await kv.cas(['t', 'b'], 1, 2)).toBe(true);
    await pending;
    expect(await kv.get(['t', 'b'])).toBe(2);
    expect(onDisk('b')).toBe('2');
    const listed: unknown[] = [];
    void kv.set(['t', 'c'], 3);
    for await (const entry of kv.list(['t'])) listed.push(entry.value);
    expect(listed).toEqual([2, 3]);
  });

  it('enqueued messages are on disk when enqueue resolves, handled once each, deleted after', async () => {
    const queue = new SqliteMessageQueue(db, 'outbox', { pollMs: 20 });
    const count = () => other.query<{ n: number }>("SELECT count(*) AS n FROM federation_queue WHERE queue = 'outbox'").get()?.n ?? 0;
    await Promise.all(Array.from({ length: 50 }, (_, i) => queue.enqueue({ n: i })));
    expect(count()).toBe(50);
    const seen: number[] = [];
    const controller = new AbortController();
    const listening = queue.listen(
      async (m) => {
        await new Promise((r) => setTimeout(r, 1));
        seen.push((m as { n: number }).n);
      },
      { signal: controller.signal },
    );
    for (let i = 0; i < 200 && seen.length < 50; i++) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await listening;
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(count()).toBe(0);
  });

  it('a handler that fails leaves its message queued for a later attempt', async () => {
    const queue = new SqliteMessageQueue(db, 'inbox', { pollMs: 20 });
    await queue.enqueue({ boom: true });
    const controller = new AbortController();
    let attempts = 0;
    const listening = queue.listen(
      () => {
        attempts++;
        throw new Error('peer down');
      },
      { signal: controller.signal },
    );
    for (let i = 0; i < 100 && attempts === 0; i++) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await listening;
    const row = other.query<{ attempts: number; last_error: string; locked_until: number | null }>("SELECT attempts, last_error, locked_until FROM federation_queue WHERE queue = 'inbox'").get();
    expect(attempts).toBe(1);
    expect(row).toMatchObject({ attempts: 1, locked_until: null });
    expect(row?.last_error).toContain('peer down');
  });

  it('a message still in hand when its lease runs out (the clock jumped: sleep) is not handled twice', async () => {
    const queue = new SqliteMessageQueue(db, 'fanout', { pollMs: 10, leaseMs: 30 });
    await queue.enqueue({ slow: true });
    const controller = new AbortController();
    let runs = 0;
    let finished = false;
    const listening = queue.listen(
      async () => {
        runs++;
        // Ten times the lease: the worker claims again meanwhile and finds this message due.
        await new Promise((r) => setTimeout(r, 300));
        finished = true;
      },
      { signal: controller.signal },
    );
    for (let i = 0; i < 100 && !finished; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    await listening;
    expect(finished).toBe(true);
    expect(runs).toBe(1);
    expect(other.query<{ n: number }>("SELECT count(*) AS n FROM federation_queue WHERE queue = 'fanout'").get()?.n).toBe(0);
  });
});
