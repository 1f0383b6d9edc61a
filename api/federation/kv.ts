import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from '@fedify/fedify';
import type { Db } from '../db/connection.js';
import { kvDelete, kvGet, kvList, kvSet } from '../db/repos/federation.js';
import { now } from '../util/clock.js';

/** A Temporal duration as Fedify hands it over, in milliseconds. */
export function durationMs(duration: { total(unit: { unit: 'millisecond' }): number } | undefined): number {
  return duration === undefined ? 0 : Math.max(0, Math.round(duration.total({ unit: 'millisecond' })));
}

function encodeKey(key: KvKey): string {
  return JSON.stringify(key);
}

/**
 * Fedify's key-value store on our SQLite database (table `federation_kv`). Keys are stored as the
 * JSON text of the key array: `["a","b"]` starts with `["a",`, so a prefix listing is a text prefix.
 * Entries with a TTL expire (they are hidden at once and purged by `kvPurgeExpired`).
 */
export class SqliteKvStore implements KvStore {
  constructor(private readonly db: Db) {}

  /** Reads a value, or undefined when absent or expired. */
  get<T = unknown>(key: KvKey): Promise<T | undefined> {
    const row = kvGet(this.db, encodeKey(key), now());
    return Promise.resolve(row === undefined ? undefined : (JSON.parse(row.value) as T));
  }

  /** Writes a value, with an optional time to live. */
  set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    const ttl = options?.ttl === undefined ? null : durationMs(options.ttl);
    kvSet(this.db, encodeKey(key), JSON.stringify(value ?? null), ttl === null ? null : now() + ttl);
    return Promise.resolve();
  }

  /** Removes a value. */
  delete(key: KvKey): Promise<void> {
    kvDelete(this.db, encodeKey(key));
    return Promise.resolve();
  }

  /** Compare-and-swap in one transaction; values compare by their JSON text. */
  cas(key: KvKey, expectedValue: unknown, newValue: unknown, options?: KvStoreSetOptions): Promise<boolean> {
    const k = encodeKey(key);
    const ttl = options?.ttl === undefined ? null : durationMs(options.ttl);
    const swapped = this.db.transaction(() => {
      const row = kvGet(this.db, k, now());
      const current = row === undefined ? undefined : row.value;
      const expected = expectedValue === undefined ? undefined : JSON.stringify(expectedValue);
      if (current !== expected) return false;
      kvSet(this.db, k, JSON.stringify(newValue ?? null), ttl === null ? null : now() + ttl);
      return true;
    });
    return Promise.resolve(swapped);
  }

  /** Every live entry under a key prefix (all entries without one). */
  async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
    const rows =
      prefix === undefined
        ? kvList(this.db, '', '[', now())
        : kvList(this.db, encodeKey(prefix), `${encodeKey(prefix).slice(0, -1)},`, now());
    for (const row of rows) yield { key: JSON.parse(row.key) as KvKey, value: JSON.parse(row.value) as unknown };
  }
}
