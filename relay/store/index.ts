// Picks the relay's storage backend from its configuration.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openPostgresStore } from './postgres.js';
import { openSqliteStore } from './sqlite.js';
import type { RelayStore } from './types.js';

/** Whether a database URL names PostgreSQL (the only server database the relay speaks). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * Opens the relay's store: PostgreSQL when `databaseUrl` is a `postgres://` or `postgresql://`
 * URL, otherwise SQLite in `<dataDir>/relay.sqlite3` (the directory is made if missing). `serving` (default true) is for the relay
 * process itself; an admin command running beside it passes false, so that on SQLite it does not
 * take the one-process lock (see openSqliteStore).
 */
export async function openRelayStore(options: { dataDir: string; databaseUrl?: string | null; serving?: boolean }): Promise<RelayStore> {
  const url = options.databaseUrl ?? null;
  if (url !== null && url !== '') {
    if (!isPostgresUrl(url)) throw new Error(`unsupported database URL (expected postgres:// or postgresql://): ${url.replace(/\/\/[^@/]*@/, '//…@')}`);
    return openPostgresStore(url);
  }
  mkdirSync(options.dataDir, { recursive: true });
  return openSqliteStore(join(options.dataDir, 'relay.sqlite3'), { lock: options.serving !== false });
}
