import { closeSync, fdatasyncSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../connection.js';

/**
 * A cheap fingerprint of "anything written since": SQLite's `total_changes()` (rows this
 * connection has inserted, updated or deleted, ever) and `PRAGMA data_version` (moves when another
 * connection, e.g. a `hearth` CLI command, commits). Equal stamps mean no row anywhere changed in
 * between, so a value derived from the database then is still exact: caches keyed on it need no
 * list of events to invalidate them.
 */
export type ChangeStamp = string;

interface StampStatements {
  changes: Statement;
  version: Statement;
  /** The stamp last read in this synchronous turn, and the total_changes() it was read at. */
  memo: ChangeStamp | null;
  memoChanges: unknown;
}

// Per connection; the statements live as long as the Db (see Db.close on why they must).
const statements = new WeakMap<Db, StampStatements>();

function statementsOf(db: Db): StampStatements {
  let s = statements.get(db);
  if (!s) {
    s = { changes: db.raw.prepare('SELECT total_changes()').pluck(), version: db.raw.prepare('PRAGMA data_version').pluck(), memo: null, memoChanges: null };
    statements.set(db, s);
  }
  return s;
}

/**
 * The current change stamp of a database (two trivial statements, no table read). Reading
 * `data_version` opens a read transaction (file locks: most of the cost of a cached request), so
 * it is read once per synchronous turn: a request that checks several caches (its token, then the
 * entity it asks for) reads it once. That is as exact as reading it each time, since a commit of
 * another connection is concurrent with the whole turn either way; this connection's own writes
 * move total_changes(), which is read on every call and makes the stamp be read again.
 */
export function changeStamp(db: Db): ChangeStamp {
  const s = statementsOf(db);
  const changes = s.changes.get();
  if (s.memo !== null && s.memoChanges === changes) return s.memo;
  // Forgotten when the turn ends (before any awaited continuation or the next request runs).
  if (s.memo === null) queueMicrotask(() => forgetTurn(s));
  s.memo = `${String(changes)}:${String(s.version.get())}`;
  s.memoChanges = changes;
  return s.memo;
}

function forgetTurn(s: StampStatements): void {
  s.memo = null;
  s.memoChanges = null;
}

interface SyncStatements {
  /** The WAL file, or null when the database is not in WAL mode (then groups do nothing). */
  wal: string | null;
  level: Statement;
}

const syncStatements = new WeakMap<Db, SyncStatements>();

function syncInfo(db: Db): SyncStatements {
  let s = syncStatements.get(db);
  if (!s) {
    const mode = db.raw.prepare('PRAGMA journal_mode').pluck().get();
    const file = db.raw.name;
    s = { wal: mode === 'wal' && file !== '' && file !== ':memory:' ? `${resolve(file)}-wal` : null, level: db.raw.prepare('PRAGMA synchronous').pluck() };
    syncStatements.set(db, s);
  }
  return s;
}

/**
 * The WAL file of a connection, for flushing it to disk from outside SQLite; null when the
 * database is not a file in WAL mode.
 */
export function walFileOf(db: Db): string | null {
  return syncInfo(db).wal;
}

/** Open sync groups per connection, and the synchronous level to restore when the last closes. */
const openGroups = new WeakMap<Db, { depth: number; level: number }>();

/**
 * Opens a sync group: until every open group is closed, commits on this connection do not wait for
 * the disk (synchronous=NORMAL); closing a group flushes the WAL file to disk (fdatasync) if
 * anything was written since it opened, which makes every commit made meanwhile durable, as FULL
 * would have made each of them; the last group to close restores synchronous=FULL. Whoever
 * acknowledges the work must close its group first: then nothing acknowledged can be lost, for one
 * flush instead of one per commit. Groups of concurrent requests (one awaiting while another runs)
 * nest: each closer flushes what was committed while it was open, so a request never answers
 * before its own commits reach the disk. Returns null (nothing to do) inside a transaction,
 * outside WAL mode, or when the connection was set below FULL by someone else. The closing
 * function is idempotent; it throws if the flush fails.
 */
export function openSyncGroup(db: Db): (() => void) | null {
  if (db.raw.inTransaction) return null;
  const info = syncInfo(db);
  const wal = info.wal;
  if (wal === null) return null;
  let group = openGroups.get(db);
  if (!group || group.depth === 0) {
    const level = Number(info.level.get());
    if (level < 2) return null;
    group = { depth: 0, level };
    openGroups.set(db, group);
    db.raw.exec('PRAGMA synchronous = NORMAL');
  }
  const state = group;
  state.depth += 1;
  const changes = statementsOf(db).changes;
  const before = Number(changes.get());
  let open = true;
  return () => {
    if (!open) return;
    open = false;
    state.depth -= 1;
    if (state.depth === 0) db.raw.exec(`PRAGMA synchronous = ${state.level}`);
    if (Number(changes.get()) === before) return;
    const fd = openSync(wal, 'r');
    try {
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
  };
}
