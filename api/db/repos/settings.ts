import type { Db } from '../connection.js';

/** Reads one instance setting (stored as JSON), or undefined when it was never set. */
export function getSetting<T>(db: Db, key: string): T | undefined {
  const row = db.query<{ value: string }>('SELECT value FROM settings WHERE key = ?').get(key);
  return row === undefined ? undefined : (JSON.parse(row.value) as T);
}

/** Writes one instance setting as JSON. */
export function setSetting(db: Db, key: string, value: unknown): void {
  db.query('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, JSON.stringify(value));
}

/** Removes one instance setting. */
export function deleteSetting(db: Db, key: string): void {
  db.query('DELETE FROM settings WHERE key = ?').run(key);
}
