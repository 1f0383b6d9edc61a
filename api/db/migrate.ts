import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './connection.js';

/**
 * The numbered SQL migrations live beside this file in `migrations/NNNN_name.sql` (the build copies
 * them next to the compiled code). Each runs once, in its own transaction, in number order; the
 * applied numbers are kept in `schema_migrations`. A landed migration is never edited.
 */
export function migrationsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return join(here, 'migrations');
}

export interface MigrationResult {
  applied: string[];
  current: number;
}

/** Applies every migration that has not run yet; returns what it applied. */
export function migrate(db: Db, dir: string = migrationsDir()): MigrationResult {
  if (!existsSync(dir)) throw new Error(`migrations directory not found: ${dir}`);
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`);
  const done = new Set(db.query<{ version: number }>('SELECT version FROM schema_migrations').all().map((r) => r.version));
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  const applied: string[] = [];
  let current = 0;
  for (const file of files) {
    const version = Number(file.slice(0, 4));
    current = Math.max(current, version);
    if (done.has(version)) continue;
    const sql = readFileSync(join(dir, file), 'utf8');
    db.transaction(() => {
      db.exec(sql);
      db.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(version, file, Date.now());
    });
    applied.push(file);
  }
  return { applied, current };
}
