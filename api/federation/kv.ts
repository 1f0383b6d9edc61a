import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from '@fedify/fedify';
import { perConnection, type Db } from '../db/connection.js';
import { kvDelete, kvGet, kvList, kvSet } from '../db/repos/federation.js';
import { now } from '../util/clock.js';
import { groupCommitFor, type GroupCommit } from './group-commit.js';

/** A Temporal duration as Fedify hands it over, in milliseconds. */
export function durationMs(duration: { total(unit: { unit: 'millisecond' }): number } | undefined): number {
  return duration === undefined ? 0 : Math.max(0, Math.round(duration.total({ unit: 'millisecond' })));
}

function encodeKey(key: KvKey): string {
  return JSON.stringify(key);
}

/** A write waiting for its group commit: the value's JSON (null when deleted) and its expiry. */
interface PendingEntry {
  value: string | null;
  expiresAt: number | null;
}

/**
 * The key-value store of a database connection: one per connection, as writes waiting for their
 * group commit are read from its memory (Fedify's and our own reads of the document cache must
 * see the same).
 */
export const kvStoreFor: (db: Db) => SqliteKvStore = perConnection((db) => new SqliteKvStore(db));

/**
 * Fedify's key-value store on our SQLite database (table `federation_kv`). Keys are stored as the
 * JSON text of the key array: `["a","b"]` starts with `["a",`, so a prefix listing is a text prefix.
 * Entries with a TTL expire (they are hidden at once and purged by `kvPurgeExpired`). Writes go
 * through the database's group commit (several per inbound activity would otherwise each cost a
 * commit); until committed they are read from memory, and each promise resolves once committed.
 * They do not make the commit wait for the disk: Fedify keeps caches and idempotence marks here,
 * which a power cut may cost, never corrupt.
 */
export class SqliteKvStore implements KvStore {
  private readonly gc: GroupCommit;
  private readonly pending = new Map<string, PendingEntry>();

  constructor(private readonly db: Db) {
    this.gc = groupCommitFor(db);
  }

  /** Reads a value, or undefined when absent or expired. */
  get<T = unknown>(key: KvKey): Promise<T | undefined> {
    const k = encodeKey(key);
    const waiting = this.pending.get(k);
    if (waiting) {
      const live = waiting.value !== null && (waiting.expiresAt === null || waiting.expiresAt > now());
      return Promise.resolve(live ? (JSON.parse(waiting.value as string) as T) : undefined);
    }
    const row = kvGet(this.db, k, now());
    return Promise.resolve(row === undefined ? undefined : (JSON.parse(row.value) as T));
  }

  /** Writes a value, with an optional time to live. */
  set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    const ttl = options?.ttl === undefined ? null : durationMs(options.ttl);
    return this.write(encodeKey(key), { value: JSON.stringify(value ?? null), expiresAt: ttl === null ? null : now() + ttl });
  }

  /** Removes a value. */
  delete(key: KvKey): Promise<void> {
    return this.write(encodeKey(key), { value: null, expiresAt: null });
  }

  private write(k: string, entry: PendingEntry): Promise<void> {
    this.pending.set(k, entry);
    const done = () => {
      // A later write of the same key may be waiting for the next commit: it stays.
      if (this.pending.get(k) === entry) this.pending.delete(k);
    };
    return this.gc
      // Fedify keeps caches and idempotence marks here: lost ones are fetched or redone.
      .write(() => (entry.value === null ? kvDelete(this.db, k) : kvSet(this.db, k, entry.value, entry.expiresAt)), { durable: false })
      .then(done, (err: unknown) => {
        done();
        throw err;
      });
  }

  /** Compare-and-swap in one transaction (with whatever writes wait); values compare by their JSON text. */
  cas(key: KvKey, expectedValue: unknown, newValue: unknown, options?: KvStoreSetOptions): Promise<boolean> {
    const k = encodeKey(key);
    const ttl = options?.ttl === undefined ? null : durationMs(options.ttl);
    const swapped = this.gc.flush(() => {
      const row = kvGet(this.db, k, now());
      const current = row === undefined ? undefined : row.value;
      const expected = expectedValue === undefined ? undefined : JSON.stringify(expectedValue);
      if (current !== expected) return false;
      kvSet(this.db, k, JSON.stringify(newValue ?? null), ttl === null ? null : now() + ttl);
      return true;
    });
    // What waited for this key is committed now; the table holds the current value.
    this.pending.delete(k);
    return Promise.resolve(swapped === true);
  }

  /** Every live entry under a key prefix (all entries without one). */
  async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
    this.gc.flush();
    const rows =
      prefix === undefined
        ? kvList(this.db, '', '[', now())
        : kvList(this.db, encodeKey(prefix), `${encodeKey(prefix).slice(0, -1)},`, now());
    for (const row of rows) yield { key: JSON.parse(row.key) as KvKey, value: JSON.parse(row.value) as unknown };
  }
}
