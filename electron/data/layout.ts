import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { BackupError } from './errors.js';

/**
 * What a data directory holds, and which of it a backup carries. The instance writes:
 *
 * - `hearth.sqlite3` (api/app.ts `databasePath`): everything the instance knows. Archived as a
 *   consistent copy made with SQLite's online backup, never as the live file.
 * - `hearth.json` (api/config.ts, the config file `resolveConfig` reads and the setup writes): the
 *   instance's reach (origin, relay), port, mail settings. Archived: an instance moved to another
 *   computer must keep its public origin and relay, or it is not the same instance.
 * - `media/` (api/media/storage.ts `MediaStorage.root`): uploads, avatars, headers, emojis, preview
 *   images, and the copies of remote media. Archived whole. The remote copies could be fetched
 *   again, but not always (a remote server gone, or the file deleted there), and telling them from
 *   local files would mean reading the database; they are part of what the person sees.
 * - `media-staging/` (`MediaStorage.staging`): uploads a client was told are stored ("processing")
 *   that wait for background conversion. Archived: they are acknowledged writes. (Half-downloaded
 *   remote copies also land here; the restored instance fetches those again and cleans up the rest.)
 * - `tls/` (api/tls/store.ts): the local certificate authority and the server certificate of the
 *   HTTPS listener for other apps. Archived: every phone and app that was told to trust this
 *   authority keeps working after a restore or a move; without it the instance makes a new one and
 *   each device must be set up again. Its key adds little to what the archive must already be
 *   guarded as (the database holds the ActivityPub private keys and the OAuth tokens), and the
 *   authority's name constraints limit it to local names. The archive is written owner-only.
 */

/** The database file (api/app.ts `databasePath`). */
export const DATABASE_FILE = 'hearth.sqlite3';
/** The config file inside the data directory (api/config.ts). */
export const CONFIG_FILE = 'hearth.json';
/** Folders archived whole, in the order they are written. */
export const DATA_FOLDERS: readonly string[] = ['tls', 'media-staging', 'media'];

/**
 * Entries of a data directory that belong to the instance but are left out of a backup, and why.
 * A restore removes them with the rest of the old data.
 */
export const LEFT_OUT: Readonly<Record<string, string>> = {
  // The live database's write-ahead log and its index: the online backup's copy already holds every
  // committed transaction, and a WAL beside a database it was not written for would corrupt it.
  'hearth.sqlite3-wal': 'write-ahead log of the live database (its commits are in the copy)',
  'hearth.sqlite3-shm': 'shared-memory index of the live write-ahead log',
  // Only present in rollback-journal mode, which Hearth does not use; the same reasoning holds.
  'hearth.sqlite3-journal': 'rollback journal of the live database',
  // The multipart spool (api/app.ts bodyParsers uploadDir): request bodies being read right now,
  // deleted when their request ends and emptied at every start. Nobody's data.
  uploads: 'upload spool of requests in flight (emptied at every start)',
};

/** How an entry at the top of a data directory is treated. */
export type EntryKind = 'database' | 'archived' | 'left-out' | 'foreign';

/**
 * Classifies a top-level name of a data directory: the database, archived data, instance files
 * left out, or foreign (not written by the instance: a log file, the person's own files). A restore
 * carries foreign entries over into the restored directory untouched.
 */
export function classifyEntry(name: string): EntryKind {
  if (name === DATABASE_FILE) return 'database';
  if (name === CONFIG_FILE || DATA_FOLDERS.includes(name)) return 'archived';
  if (Object.hasOwn(LEFT_OUT, name)) return 'left-out';
  return 'foreign';
}

/**
 * Whether a file name inside an archived folder is a file still being written: the media storage
 * writes `<key>.<uuid>.part` and the certificate store `<file>.<pid>.tmp`, then renames them into
 * place. The finished file is what counts; a half-written one is never archived.
 */
export function isTemporaryName(name: string): boolean {
  return name.endsWith('.part') || name.endsWith('.tmp');
}

/** A file of the data directory to archive. */
export interface DataFile {
  /** The path inside the archive and the data directory, with `/` separators. */
  path: string;
  /** The absolute path on disk. */
  abs: string;
  size: number;
}

async function walk(dataDir: string, rel: string, out: DataFile[]): Promise<void> {
  const abs = join(dataDir, ...rel.split('/'));
  const entries = await readdir(abs, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    // Removed meanwhile (an emptied staging folder): nothing to archive there.
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = `${rel}/${entry.name}`;
    if (entry.isDirectory()) await walk(dataDir, path, out);
    else if (entry.isFile()) {
      if (isTemporaryName(entry.name)) continue;
      const info = await lstat(join(abs, entry.name)).catch(() => null);
      if (info?.isFile()) out.push({ path, abs: join(abs, entry.name), size: info.size });
    } else {
      // A link could point anywhere (and a restore never makes one); refuse rather than skip it,
      // so that media moved elsewhere through a link is not silently left out.
      throw new BackupError('unsupported', `${join(abs, entry.name)} is a symbolic link or a special file: a backup holds only plain files and folders`);
    }
  }
}

/**
 * The files a backup archives besides the database: the config file, then every plain file under
 * the archived folders (temporary names skipped). Listed after the database copy is made, so every
 * file the copy refers to is there unless it was deleted meanwhile.
 */
export async function listDataFiles(dataDir: string): Promise<DataFile[]> {
  const out: DataFile[] = [];
  const config = await lstat(join(dataDir, CONFIG_FILE)).catch(() => null);
  if (config?.isSymbolicLink()) throw new BackupError('unsupported', `${join(dataDir, CONFIG_FILE)} is a symbolic link: a backup holds only plain files and folders`);
  if (config?.isFile()) out.push({ path: CONFIG_FILE, abs: join(dataDir, CONFIG_FILE), size: config.size });
  for (const folder of DATA_FOLDERS) {
    const info = await lstat(join(dataDir, folder)).catch(() => null);
    if (!info) continue;
    if (!info.isDirectory()) throw new BackupError('unsupported', `${join(dataDir, folder)} is not a plain folder: a backup holds only plain files and folders`);
    await walk(dataDir, folder, out);
  }
  return out;
}

// One path segment: letters, digits, '_', '-' and dots, not starting with a dot (no '.', '..', no
// hidden names), no separators, no drive letters, nothing a file system could read otherwise.
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/;

/**
 * Why an archive entry's path may not be extracted, or null when it may: it must be relative, made
 * of plain segments (no `..`, no `.`, no empty segment, no backslash, no drive letter), and be the
 * database, the config file or a file under an archived folder (or the manifest).
 */
export function unsafeEntryPath(path: string, manifestName: string): string | null {
  if (path === '' || path.includes('\0')) return 'an empty or binary name';
  if (path.startsWith('/') || path.includes('\\') || /^[A-Za-z]:/.test(path)) return 'an absolute path';
  const segments = path.split('/');
  if (segments.some((s) => s === '..')) return 'a path that climbs out with ".."';
  if (!segments.every((s) => SEGMENT.test(s) && !s.endsWith('.'))) return 'a name that is not a plain file name';
  if (path === DATABASE_FILE || path === CONFIG_FILE || path === manifestName) return null;
  if (segments.length >= 2 && DATA_FOLDERS.includes(segments[0] as string)) return null;
  return 'a file outside the data a Hearth backup holds';
}
