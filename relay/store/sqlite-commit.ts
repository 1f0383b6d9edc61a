// Group commit for the relay's SQLite store, and the lock that keeps a second relay process off
// the same database.
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as SqliteDatabase } from 'better-sqlite3';

interface Job {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Commits writes in groups. With every commit waiting for the disk, 500 inbox POSTs a second
 * would be 500 fsyncs one after another; instead, writes that arrive while one group is being
 * committed and flushed wait together and go into the next transaction. Each write runs in a
 * savepoint of its own (one that throws fails alone); the connection commits with
 * `synchronous=NORMAL` (no wait), then the WAL file is flushed with fdatasync on libuv's thread
 * pool, which is what `synchronous=FULL` would do at the commit, without stopping the event loop;
 * only then does each write's promise resolve. So whatever resolved is on disk.
 */
export class GroupCommit {
  private queue: Job[] = [];
  private running = false;
  private drained: (() => void)[] = [];

  constructor(
    private readonly db: SqliteDatabase,
    private readonly wal: FileHandle,
  ) {}

  /** Runs `write` in the next group's transaction; resolves with its result once that is on disk. */
  write<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
      if (!this.running) {
        this.running = true;
        // The first group waits one turn, so that writes started together commit together.
        setImmediate(() => void this.drain());
      }
    });
  }

  /** Resolves once nothing is queued or being committed. */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      await this.commit(batch);
    }
    this.running = false;
    for (const done of this.drained.splice(0)) done();
  }

  private async commit(batch: Job[]): Promise<void> {
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.db
        .transaction(() => {
          for (const job of batch) {
            try {
              // A nested better-sqlite3 transaction is a savepoint: rolled back alone when it throws.
              outcomes.push({ ok: true, value: this.db.transaction(job.write)() });
            } catch (error) {
              outcomes.push({ ok: false, error });
            }
          }
        })
        .immediate();
    } catch (error) {
      // The commit itself failed: nothing of the group is written.
      for (const job of batch) job.reject(error);
      return;
    }
    try {
      await this.wal.datasync();
    } catch (error) {
      // Committed but not known to be on disk: nobody may be told it is stored.
      for (const job of batch) job.reject(error);
      return;
    }
    batch.forEach((job, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) job.resolve(outcome.value);
      else job.reject(outcome?.error ?? new Error('write lost its outcome'));
    });
  }
}

/**
 * Opens the WAL file of an open database for the flushes, and syncs the directory once so the
 * WAL file's own entry survives a power cut (SQLite syncs it only under `synchronous=FULL`).
 * The WAL exists from the first write in WAL mode and stays while the connection is open.
 */
export async function openWal(file: string): Promise<FileHandle> {
  const wal = await open(`${file}-wal`, 'r+');
  const dir = openSync(dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
  return wal;
}

/** Thrown when another relay process holds the data directory. */
export class StoreLockedError extends Error {
  constructor(file: string) {
    super(`another relay process is using ${file} (its lock ${file}.lock is held): stop it first, or give this relay its own data directory`);
    this.name = 'StoreLockedError';
  }
}

/**
 * Takes the process's lock on the database: an exclusive SQLite lock on `<file>.lock`, held
 * until `release` (or the process's end: the kernel drops it even after SIGKILL). A second relay
 * process, or a second store in this one, gets `StoreLockedError` at once.
 */
export function lockStore(file: string): { release: () => void } {
  const lock = new Database(`${file}.lock`);
  try {
    // In exclusive locking mode SQLite keeps the lock of its first write transaction until close.
    lock.exec('PRAGMA busy_timeout = 0; PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT;');
  } catch (err) {
    lock.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new StoreLockedError(file);
    throw err;
  }
  return { release: () => lock.close() };
}
