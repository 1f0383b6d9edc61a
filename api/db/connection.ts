import { AsyncLocalStorage } from 'node:async_hooks';
import Database from 'better-sqlite3';
import type { Database as RawDatabase, Statement } from 'better-sqlite3';

/** A bound parameter value. Identifiers are passed as decimal strings (see `normalizeParams`). */
export type Param = string | number | bigint | null | Buffer;
export type Params = readonly Param[] | Record<string, Param | undefined>;

/** Row values as repos receive them: ids as strings, other integers as numbers. */
export type Value = string | number | null | Buffer;

/**
 * A prepared statement that returns normalized rows: columns named `id` or ending in `_id` come
 * back as decimal strings (64-bit ids do not fit in a JS number); all other integers as numbers.
 */
export interface Query<R> {
  get(...params: Param[]): R | undefined;
  get(params: Record<string, Param | undefined>): R | undefined;
  all(...params: Param[]): R[];
  all(params: Record<string, Param | undefined>): R[];
  run(...params: Param[]): { changes: number; lastInsertRowid: string };
  run(params: Record<string, Param | undefined>): { changes: number; lastInsertRowid: string };
  pluck(...params: Param[]): Value[];
}

function isIdColumn(name: string): boolean {
  return name === 'id' || name.endsWith('_id');
}

function normalizeRow(row: Record<string, unknown>): Record<string, unknown> {
  for (const key in row) {
    const value = row[key];
    if (typeof value === 'bigint') row[key] = isIdColumn(key) ? value.toString() : Number(value);
  }
  return row;
}

function normalizeParam(key: string | undefined, value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  // Ids travel as strings; bind them as 64-bit integers so that comparisons are numeric even
  // where SQLite would apply no column affinity (expressions, MAX(), sub-selects).
  if (key !== undefined && typeof value === 'string' && isIdColumn(key) && /^[0-9]{1,19}$/.test(value)) {
    return BigInt(value);
  }
  return value;
}

function normalizeParams(params: unknown[]): unknown[] {
  if (params.length === 1 && params[0] !== null && typeof params[0] === 'object' && !Buffer.isBuffer(params[0])) {
    const named = params[0] as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key in named) out[key] = normalizeParam(key, named[key]);
    return [out];
  }
  return params.map((value) => normalizeParam(undefined, value));
}

const durability = new AsyncLocalStorage<'relaxed' | 'full'>();

/**
 * Runs `fn`, and everything it awaits or schedules, with commits that do not wait for the disk
 * (`synchronous=NORMAL` for those commits only). For writes that are rebuilt or redone when lost:
 * derived rows (home feeds, conversations) and the handling of a queued message, which is
 * deleted only afterwards. The next commit that does wait for the disk makes them durable too (the
 * WAL is flushed as a whole); a power cut before it loses a prefix-closed tail of commits (WAL
 * frames carry cumulative checksums), so the lost handling goes together with the deletion of its
 * message, which is handed out again (handlers are idempotent). Atomic either way.
 */
export function withRelaxedDurability<T>(fn: () => T): T {
  return durability.run('relaxed', fn);
}

/** Runs `fn` with fully synchronous commits, even when called under `withRelaxedDurability`. */
export function withFullDurability<T>(fn: () => T): T {
  return durability.run('full', fn);
}

/**
 * The database handle that repos use. Statements are prepared once and cached by their SQL text.
 * Transactions are synchronous (better-sqlite3): never hold one across an `await`.
 */
export class Db {
  readonly raw: RawDatabase;
  private readonly cache = new Map<string, Statement>();
  private syncLevel: Statement | null = null;

  constructor(raw: RawDatabase) {
    this.raw = raw;
  }

  /** A cached prepared statement whose rows are normalized as `Query` describes. */
  query<R = Record<string, Value>>(sql: string): Query<R> {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      stmt = this.raw.prepare(sql);
      stmt.safeIntegers(true);
      this.cache.set(sql, stmt);
    }
    const s = stmt;
    return {
      get: (...params: unknown[]) => {
        const row = s.get(...(normalizeParams(params) as unknown[])) as Record<string, unknown> | undefined;
        return row === undefined ? undefined : (normalizeRow(row) as R);
      },
      all: (...params: unknown[]) =>
        (s.all(...(normalizeParams(params) as unknown[])) as Record<string, unknown>[]).map((row) => normalizeRow(row) as R),
      run: (...params: unknown[]) => {
        const result = s.run(...(normalizeParams(params) as unknown[]));
        return { changes: result.changes, lastInsertRowid: String(result.lastInsertRowid) };
      },
      pluck: (...params: unknown[]) => {
        const rows = s.raw(true).all(...(normalizeParams(params) as unknown[])) as unknown[][];
        s.raw(false);
        const column = s.columns()[0]?.name ?? '';
        return rows.map((r) => {
          const v = r[0];
          return typeof v === 'bigint' ? (isIdColumn(column) ? v.toString() : Number(v)) : (v as Value);
        });
      },
    } as Query<R>;
  }

  /**
   * Runs `fn` in one transaction (BEGIN IMMEDIATE), committing when it returns. Under
   * `withRelaxedDurability` the commit does not wait for the disk (see there).
   */
  transaction<T>(fn: () => T): T {
    // Nested: a savepoint, and the enclosing commit decides.
    if (this.raw.inTransaction || durability.getStore() !== 'relaxed') return this.raw.transaction(fn).immediate();
    // Already below FULL (an open sync group, or set so by its owner): that level stands.
    this.syncLevel ??= this.raw.prepare('PRAGMA synchronous').pluck();
    const level = Number(this.syncLevel.get());
    if (level < 2) return this.raw.transaction(fn).immediate();
    this.raw.exec('PRAGMA synchronous = NORMAL');
    try {
      return this.raw.transaction(fn).immediate();
    } finally {
      this.raw.exec(`PRAGMA synchronous = ${level}`);
    }
  }

  /** Runs SQL text with several statements (migrations). */
  exec(sql: string): void {
    this.raw.exec(sql);
  }

  close(): void {
    this.cache.clear();
    this.syncLevel = null;
    this.raw.close();
  }
}

/**
 * A function that makes one `T` per database connection and hands the same one back after: for
 * state that belongs to a connection (its group commit, its key-value store with the writes still
 * waiting for that commit), gone with the connection.
 */
export function perConnection<T>(make: (db: Db) => T): (db: Db) => T {
  const made = new WeakMap<Db, T>();
  return (db) => {
    let value = made.get(db);
    if (value === undefined) {
      value = make(db);
      made.set(db, value);
    }
    return value;
  };
}

/**
 * Opens (creating if needed) the SQLite file with the pragmas the architecture requires: WAL,
 * foreign keys on, `synchronous=FULL` so an acknowledged write survives power loss, and a busy
 * timeout for the second connection a CLI command may hold.
 */
export function openDatabase(file: string): Db {
  const raw = new Database(file);
  raw.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000; PRAGMA temp_store = MEMORY;');
  return new Db(raw);
}
