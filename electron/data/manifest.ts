import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from 'better-sqlite3';
import { BackupError } from './errors.js';
import { DATABASE_FILE } from './layout.js';

/**
 * The archive's manifest (`manifest.json`, the last entry, written once every file's hash is
 * known): what made the archive, the database's schema version, and every other entry with its
 * size and SHA-256.
 */

export const ARCHIVE_FORMAT = 'hearth-backup';
/** The format version this build writes and reads. */
export const FORMAT_VERSION = 1;
export const MANIFEST_NAME = 'manifest.json';
/** A manifest of a few hundred thousand files stays far below this. */
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** One archived file. */
export interface ManifestFile {
  /** Path inside the archive and the data directory (`/` separators). */
  path: string;
  size: number;
  /** SHA-256 of the content, lower-case hex. */
  sha256: string;
}

/** What `manifest.json` holds. */
export interface Manifest {
  format: typeof ARCHIVE_FORMAT;
  formatVersion: number;
  /** The Hearth version that wrote the archive. */
  hearthVersion: string;
  /** ISO 8601, when the database copy was taken. */
  createdAt: string;
  /** The highest migration applied to the archived database (`schema_migrations`). */
  schemaVersion: number;
  /** The database's path in the archive. */
  database: string;
  files: ManifestFile[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses and checks a manifest's text; a clear `BackupError` for anything off. */
export function parseManifest(text: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BackupError('damaged', 'the backup\'s manifest is not readable JSON');
  }
  if (!isObject(value) || value.format !== ARCHIVE_FORMAT) throw new BackupError('not-archive', 'this is not a Hearth backup (its manifest names another format)');
  if (typeof value.formatVersion !== 'number' || !Number.isInteger(value.formatVersion)) throw new BackupError('damaged', 'the backup\'s manifest has no format version');
  if (value.formatVersion > FORMAT_VERSION) {
    throw new BackupError('unsupported', `this backup was written by a newer Hearth (archive format ${value.formatVersion}; this version reads format ${FORMAT_VERSION}): update Hearth first`);
  }
  if (value.formatVersion < 1) throw new BackupError('unsupported', `unknown backup format version ${value.formatVersion}`);
  const { hearthVersion, createdAt, schemaVersion, database, files } = value;
  if (typeof hearthVersion !== 'string' || typeof createdAt !== 'string' || typeof database !== 'string') throw new BackupError('damaged', 'the backup\'s manifest is incomplete');
  if (typeof schemaVersion !== 'number' || !Number.isInteger(schemaVersion) || schemaVersion < 0) throw new BackupError('damaged', 'the backup\'s manifest has no schema version');
  if (database !== DATABASE_FILE) throw new BackupError('damaged', `the backup's manifest names an unexpected database (${database})`);
  if (!Array.isArray(files)) throw new BackupError('damaged', 'the backup\'s manifest lists no files');
  const list: ManifestFile[] = files.map((f: unknown) => {
    if (!isObject(f) || typeof f.path !== 'string' || typeof f.size !== 'number' || !Number.isSafeInteger(f.size) || f.size < 0 || typeof f.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(f.sha256)) {
      throw new BackupError('damaged', 'the backup\'s manifest lists a file without a size or hash');
    }
    return { path: f.path, size: f.size, sha256: f.sha256 };
  });
  return { format: ARCHIVE_FORMAT, formatVersion: value.formatVersion, hearthVersion, createdAt, schemaVersion, database, files: list };
}

/**
 * The highest migration applied to a database (its `schema_migrations` table, as api/db/migrate.ts
 * records it); a `damaged` error when the table is missing (not a Hearth database).
 */
export function databaseSchemaVersion(db: Database): number {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!table) throw new BackupError('damaged', 'the database in the backup is not a Hearth database (it records no migrations)');
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | bigint | null };
  return Number(row.v ?? 0);
}

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The highest migration this build knows: the numbered SQL files beside the api's migrator
 * (`api/db/migrations`, copied into `dist/api/db/migrations` by the build). Read as files, since
 * electron/ may not import api/ beyond its start function; the path is the same from the sources
 * (electron/data) and from the build (dist/electron/data).
 */
export function knownSchemaVersion(): number {
  const dir = join(here, '..', '..', 'api', 'db', 'migrations');
  if (!existsSync(dir)) throw new Error(`migrations directory not found: ${dir}`);
  let highest = 0;
  for (const file of readdirSync(dir)) {
    const m = /^(\d{4})_[a-z0-9_]+\.sql$/.exec(file);
    if (m) highest = Math.max(highest, Number(m[1]));
  }
  return highest;
}

/** Hearth's version from its package.json, found by walking up from this module (sources or build). */
export function hearthVersion(): string {
  let dir = here;
  for (let i = 0; i < 6; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'hearth' && typeof pkg.version === 'string') return pkg.version;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return '0.0.0';
}
