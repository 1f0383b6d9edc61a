import { open } from 'node:fs/promises';
import { perConnection, withFullDurability, withRelaxedDurability, type Db } from '../db/connection.js';
import { walFileOf } from '../db/repos/changes.js';

interface Pending {
  write: () => void;
  durable: boolean;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for the federation queue and key-value store. With `synchronous=FULL` every commit
 * waits for the disk (about half a millisecond to several), and an inbound activity used to cost
 * several commits of its own (enqueue, idempotency and cache entries, claim, delete). Writes handed
 * to `write` are gathered until the next turn of the event loop and committed together in one
 * transaction; each promise resolves only after that commit, and a durable write's only once the
 * WAL holding it is flushed to disk, so a caller that awaits it (Fedify answering 202 after
 * enqueueing) still has its write on disk first. The flush runs off the main thread, so the
 * event loop serves other requests meanwhile. `flush` commits what is pending at once, together
 * with a read-write step that must see it (claiming due messages).
 */
export class GroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;
  /** WAL flushes in progress. */
  private syncing = 0;

  constructor(private readonly db: Db) {}

  /**
   * Queues a write for the next group commit; resolves once it is committed. A `durable` write
   * (an enqueue that is acknowledged: a 202 to a peer, a REST answer) makes that commit wait for
   * the disk; the others (claims, deletes and retries of handled messages, cache entries) are
   * redone or rebuilt if a power cut loses them, so a commit of only those does not wait.
   */
  write(write: () => void, options: { durable: boolean }): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ write, durable: options.durable, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  /** Whether no write waits for a commit or for its flush to disk. */
  get idle(): boolean {
    return this.pending.length === 0 && this.syncing === 0;
  }

  /**
   * Commits the pending writes now, with `step` run after them in the same transaction; returns
   * what `step` returns. A write that throws fails alone (SQLite undoes just that statement). The
   * commit waits for the disk when a pending write is durable (`step` itself never needs it).
   */
  flush<T>(step?: () => T): T | undefined {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0 && !step) return undefined;
    if (!this.db.raw.open) {
      for (const p of batch) p.reject(new Error('database closed before the write was committed'));
      return undefined;
    }
    const failed = new Map<Pending, unknown>();
    const durable = batch.some((p) => p.durable);
    let result: T | undefined;
    let wal: string | null = null;
    try {
      // A durable write is acknowledged on the strength of this commit: the commit itself does not
      // wait for the disk (that would stop the event loop for the whole flush); the WAL file is
      // flushed off the main thread after it, and only then are durable writers told. Whatever
      // else the WAL holds becomes durable with it. Without a WAL file, a fully synchronous commit.
      wal = durable ? walFileOf(this.db) : null;
      const durability = durable && wal === null ? withFullDurability : withRelaxedDurability;
      result = durability(() => this.db.transaction(() => {
        for (const p of batch) {
          try {
            p.write();
          } catch (err) {
            failed.set(p, err);
          }
        }
        return step?.();
      }));
    } catch (err) {
      // The commit itself failed: nothing of the batch is written.
      for (const p of batch) p.reject(err);
      throw err;
    }
    const flushed = wal === null ? null : this.flushWal(wal);
    for (const p of batch) {
      if (failed.has(p)) p.reject(failed.get(p));
      else if (p.durable && flushed) flushed.then(p.resolve, p.reject);
      else p.resolve();
    }
    return result;
  }

  /** fdatasync of the WAL file on libuv's thread pool (what `synchronous=FULL` does at a commit). */
  private async flushWal(wal: string): Promise<void> {
    this.syncing += 1;
    try {
      const file = await open(wal, 'r').catch((err: unknown) => {
        // Gone: the last connection closed, checkpointing the WAL into the database file (a
        // checkpoint syncs that file) before removing it. Nothing is left to flush.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      });
      if (!file) return;
      try {
        await file.datasync();
      } finally {
        await file.close();
      }
    } finally {
      this.syncing -= 1;
    }
  }
}

/** The group commit of a database (shared by its queues and key-value store). */
export const groupCommitFor: (db: Db) => GroupCommit = perConnection((db) => new GroupCommit(db));
