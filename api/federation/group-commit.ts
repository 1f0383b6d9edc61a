import type { Db } from '../db/connection.js';

interface Pending {
  write: () => void;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for the federation queue and key-value store. With `synchronous=FULL` every commit
 * waits for the disk (about half a millisecond to several), and an inbound activity used to cost
 * several commits of its own (enqueue, idempotency and cache entries, claim, delete). Writes handed
 * to `write` are gathered until the next turn of the event loop and committed together in one
 * transaction; each promise resolves only after that commit, so a caller that awaits it (Fedify
 * answering 202 after enqueueing) still has its write on disk first. `flush` commits what is
 * pending at once, together with a read-write step that must see it (claiming due messages).
 */
export class GroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;

  constructor(private readonly db: Db) {}

  /** Queues a write for the next group commit; resolves once it is committed. */
  write(write: () => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ write, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  /** Whether writes wait for the next group commit. */
  get idle(): boolean {
    return this.pending.length === 0;
  }

  /**
   * Commits the pending writes now, with `step` run after them in the same transaction; returns
   * what `step` returns. A write that throws fails alone (SQLite undoes just that statement).
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
    let result: T | undefined;
    try {
      result = this.db.transaction(() => {
        for (const p of batch) {
          try {
            p.write();
          } catch (err) {
            failed.set(p, err);
          }
        }
        return step?.();
      });
    } catch (err) {
      // The commit itself failed: nothing of the batch is written.
      for (const p of batch) p.reject(err);
      throw err;
    }
    for (const p of batch) {
      if (failed.has(p)) p.reject(failed.get(p));
      else p.resolve();
    }
    return result;
  }
}

const instances = new WeakMap<Db, GroupCommit>();

/** The group commit of a database (shared by its queues and key-value store). */
export function groupCommitFor(db: Db): GroupCommit {
  let gc = instances.get(db);
  if (!gc) {
    gc = new GroupCommit(db);
    instances.set(db, gc);
  }
  return gc;
}
