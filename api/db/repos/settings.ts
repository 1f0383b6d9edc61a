import type { Statement } from 'better-sqlite3';
import type { Db } from '../connection.js';

/**
 * The JSON text of settings already read, per connection. Settings are read several times per
 * inbound activity (domain lists, the instance actor's keys) and change rarely, through
 * `setSetting`/`deleteSetting` (which update this cache) or through another connection: a
 * `hearth` CLI command, say. `PRAGMA data_version` moves whenever another connection commits, so
 * the cache is dropped then and no such change goes unseen; the check is one trivial statement
 * where a read was a query and a parse. A null text marks a setting known to be absent.
 */
interface SettingsCache {
  dataVersion: Statement;
  seen: unknown;
  texts: Map<string, string | null>;
}

const caches = new WeakMap<Db, SettingsCache>();

/** The cache of `db`, checked against other connections' commits; null inside a transaction. */
function validCache(db: Db): Map<string, string | null> | null {
  // A transaction may write settings and roll back: what it reads is not kept.
  if (db.raw.inTransaction) return null;
  let cache = caches.get(db);
  if (!cache) {
    cache = { dataVersion: db.raw.prepare('PRAGMA data_version').pluck(), seen: undefined, texts: new Map() };
    caches.set(db, cache);
  }
  const version = cache.dataVersion.get();
  if (version !== cache.seen) {
    cache.texts.clear();
    cache.seen = version;
  }
  return cache.texts;
}

function readText(db: Db, cache: Map<string, string | null> | null, key: string): string | undefined {
  let text = cache?.get(key);
  if (text === undefined) {
    text = db.query<{ value: string }>('SELECT value FROM settings WHERE key = ?').get(key)?.value ?? null;
    if (cache && cache.size < 1000) cache.set(key, text);
  }
  return text ?? undefined;
}

/**
 * The stored JSON text of several settings (undefined for those never set), as of now: for callers
 * that keep what they derive from a setting as long as its text is unchanged.
 */
export function getSettingTexts(db: Db, keys: readonly string[]): (string | undefined)[] {
  const cache = validCache(db);
  return keys.map((key) => readText(db, cache, key));
}

/** Reads one instance setting (stored as JSON), or undefined when it was never set. A fresh value each call. */
export function getSetting<T>(db: Db, key: string): T | undefined {
  const text = readText(db, validCache(db), key);
  return text === undefined ? undefined : (JSON.parse(text) as T);
}

/** Writes one instance setting as JSON. */
export function setSetting(db: Db, key: string, value: unknown): void {
  db.query('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, JSON.stringify(value));
  // Read again next time (inside a transaction that may yet roll back, nothing is cached meanwhile).
  caches.get(db)?.texts.delete(key);
}

/** Removes one instance setting. */
export function deleteSetting(db: Db, key: string): void {
  db.query('DELETE FROM settings WHERE key = ?').run(key);
  caches.get(db)?.texts.delete(key);
}
