import { randomBytes } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { checkDatabase, readArchive } from './archive-read.js';
import { asBackupError, BackupError, throwIfAborted } from './errors.js';
import { refuseArchiveInside, syncFolder } from './fs-util.js';
import { classifyEntry, DATABASE_FILE } from './layout.js';
import { knownSchemaVersion, type Manifest } from './manifest.js';
import { ProgressReporter, type ProgressCallback } from './progress.js';

/** What an archive holds, once checked. */
export interface ArchiveSummary {
  formatVersion: number;
  /** The Hearth version that wrote it. */
  hearthVersion: string;
  /** When its database copy was taken (ISO 8601). */
  createdAt: string;
  schemaVersion: number;
  /** Number of files (the database included). */
  files: number;
  /** Their total size, uncompressed. */
  bytes: number;
}

/** Options shared by `checkArchive` and `restoreDataDir`. */
export interface ReadOptions {
  onProgress?: ProgressCallback;
  signal?: AbortSignal;
}

/** What `checkArchive` takes. */
export interface CheckOptions extends ReadOptions {
  /** Where the database is extracted for its check (default: the system's temporary folder). */
  tempDir?: string;
}

/** What `restoreDataDir` needs. */
export interface RestoreOptions extends ReadOptions {
  archivePath: string;
  /** The data directory to replace (or to create: a move to another computer). */
  dataDir: string;
}

/** A finished restore. */
export interface RestoreResult {
  dataDir: string;
  summary: ArchiveSummary;
  /** Names the old directory held that were not the instance's (a log…), moved into the new one. */
  carriedOver: string[];
}

function summarize(manifest: Manifest): ArchiveSummary {
  return {
    formatVersion: manifest.formatVersion,
    hearthVersion: manifest.hearthVersion,
    createdAt: manifest.createdAt,
    schemaVersion: manifest.schemaVersion,
    files: manifest.files.length,
    bytes: manifest.files.reduce((n, f) => n + f.size, 0),
  };
}

// Sibling names, so that every rename stays on one file system (and is atomic there).
const restoringPrefix = (base: string) => `.${base}.restoring-`;
const replacedPrefix = (base: string) => `.${base}.replaced-`;
const backupPrefix = (base: string) => `.${base}.backup-`;

/**
 * Checks an archive without touching any data directory: the manifest is there and of a known
 * version; every file is a plain file with a safe path, and matches its size and SHA-256; the
 * database opens, passes `PRAGMA integrity_check` and is no newer than this build. The database
 * is extracted for that to a temporary folder (`tempDir`, default the system's), removed after.
 * Throws a `BackupError` saying what is wrong.
 */
export async function checkArchive(archivePath: string, options: CheckOptions = {}): Promise<ArchiveSummary> {
  try {
    return await check(archivePath, options);
  } catch (err) {
    throw asBackupError(err, `checking the backup ${archivePath}`);
  }
}

/** The work of `checkArchive` (which turns unexpected errors into `io` ones). */
async function check(archivePath: string, options: CheckOptions): Promise<ArchiveSummary> {
  const progress = new ProgressReporter(options.onProgress);
  const known = knownSchemaVersion();
  const work = await mkdtemp(join(options.tempDir ?? tmpdir(), 'hearth-check-'));
  try {
    const database = join(work, DATABASE_FILE);
    const { manifest } = await readArchive(resolve(archivePath), { databaseTo: database }, (f) => progress.report(0.9 * f, 'reading'), options.signal);
    progress.report(0.9, 'checking');
    checkDatabase(database, manifest, known);
    progress.done();
    return summarize(manifest);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The data directory as it stands: absent, or a real directory (a link or a file is refused). */
async function inspectTarget(dataDir: string): Promise<'absent' | 'hearth' | 'empty'> {
  if (dirname(dataDir) === dataDir) throw new BackupError('invalid-target', `${dataDir} cannot be a data directory`);
  const info = await lstat(dataDir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (!info) return 'absent';
  // Swapping directories would replace the link, not the data it points to, and leave that data
  // behind under another name: refuse, and let the person choose the real folder.
  if (info.isSymbolicLink()) throw new BackupError('invalid-target', `the data directory ${dataDir} is a symbolic link: choose the folder it points to`);
  if (!info.isDirectory()) throw new BackupError('invalid-target', `${dataDir} is not a folder`);
  const names = await readdir(dataDir);
  if (names.length === 0) return 'empty';
  // A folder of other things (the person's documents) is never swapped away: only an empty folder
  // or a Hearth data directory may be replaced.
  if (!names.includes(DATABASE_FILE)) throw new BackupError('invalid-target', `${dataDir} is not a Hearth data directory (it has no ${DATABASE_FILE}) and is not empty: choose an empty folder`);
  return 'hearth';
}

/** Moves names from one folder to another; on a failure moves back those already moved, then throws. */
async function moveNames(names: readonly string[], from: string, to: string): Promise<void> {
  const moved: string[] = [];
  try {
    for (const name of names) {
      await rename(join(from, name), join(to, name));
      moved.push(name);
    }
  } catch (err) {
    for (const name of moved.reverse()) await rename(join(to, name), join(from, name)).catch(() => undefined);
    throw err;
  }
}

/**
 * Restores an archive into a data directory. Run it while the server is STOPPED (the host stops
 * it, calls this, and starts it again on the restored data): the server holds the database open
 * and would go on writing into the directory moved aside.
 *
 * Nothing is replaced until everything is checked: the archive is read whole into a new sibling
 * folder (`.<name>.restoring-…`), every entry checked as it comes (safe path, plain file) and
 * against the manifest (size, SHA-256, nothing missing or extra), and the database checked
 * (integrity, schema no newer than this build). Then the directories are swapped: the old one is
 * renamed aside (`.<name>.replaced-…`), the new one renamed into place, and the old one removed
 * only after that succeeded; on a failure the old one is put back. Entries of the old directory
 * that are not the instance's (a log file) are carried over into the new one. A crash between
 * the two renames leaves the old data whole under its aside name: `recoverDataDir` puts it back.
 *
 * Refused, with the data directory untouched: a path that is a symbolic link, a file, or a
 * non-empty folder that is not a Hearth data directory; an archive inside the data directory; and
 * every archive `checkArchive` refuses.
 */
export async function restoreDataDir(options: RestoreOptions): Promise<RestoreResult> {
  try {
    return await restore(options);
  } catch (err) {
    throw asBackupError(err, `restoring into ${options.dataDir}`);
  }
}

/** The work of `restoreDataDir` (which turns unexpected errors into `io` ones). */
async function restore(options: RestoreOptions): Promise<RestoreResult> {
  const dataDir = resolve(options.dataDir);
  const archivePath = resolve(options.archivePath);
  const progress = new ProgressReporter(options.onProgress);
  const known = knownSchemaVersion();
  const state = await inspectTarget(dataDir);
  await refuseArchiveInside(archivePath, dataDir);
  const parent = dirname(dataDir);
  const base = basename(dataDir);
  await mkdir(parent, { recursive: true });
  progress.report(0, 'reading');

  const staging = await mkdtemp(join(parent, restoringPrefix(base)));
  try {
    const { manifest } = await readArchive(archivePath, { extractAllTo: staging }, (f) => progress.report(0.85 * f, 'reading'), options.signal);
    progress.report(0.85, 'checking');
    checkDatabase(join(staging, DATABASE_FILE), manifest, known);
    throwIfAborted(options.signal);
    progress.report(0.97, 'replacing');

    let carriedOver: string[] = [];
    if (state === 'absent') {
      await rename(staging, dataDir);
    } else {
      carriedOver = (await readdir(dataDir)).filter((name) => classifyEntry(name) === 'foreign');
      await moveNames(carriedOver, dataDir, staging).catch((err: unknown) => {
        throw new BackupError('in-use', `the data directory ${dataDir} could not be changed (is the server still running?): ${(err as Error).message}`, { cause: err });
      });
      const aside = join(parent, `${replacedPrefix(base)}${Date.now()}-${randomBytes(4).toString('hex')}`);
      try {
        await rename(dataDir, aside);
      } catch (err) {
        await moveNames(carriedOver, staging, dataDir).catch(() => undefined);
        throw new BackupError('in-use', `the data directory ${dataDir} could not be moved aside (is the server still running?): ${(err as Error).message}`, { cause: err });
      }
      try {
        await rename(staging, dataDir);
      } catch (err) {
        // Put the old data back as it was.
        await rename(aside, dataDir);
        await moveNames(carriedOver, staging, dataDir).catch(() => undefined);
        throw new BackupError('in-use', `the restored data could not be moved into place; the old data is back: ${(err as Error).message}`, { cause: err });
      }
      await syncFolder(parent);
      // Only now, with the new data in place: the old goes. A failure here leaves a folder that
      // recoverDataDir removes at the next start; the restore itself has succeeded.
      await rm(aside, { recursive: true, force: true }).catch(() => undefined);
    }
    await syncFolder(parent);
    progress.done();
    return { dataDir, summary: summarize(manifest), carriedOver };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** What `recoverDataDir` did. */
export interface RecoverResult {
  /** The data directory was missing and the old one (moved aside by an interrupted restore) is back. */
  putBack: boolean;
  /** Leftover folders of interrupted restores and backups that were removed. */
  removed: string[];
}

/**
 * Finishes what a crash interrupted, before the server starts on `dataDir`: when the data
 * directory is missing and a restore had moved it aside, the newest aside copy is put back (the
 * restore had not got its new data into place); leftovers of restores (the half-read new data, the
 * old data once replaced) and of backups (the database copy) are removed. Cheap when there is
 * nothing to do: it lists the parent folder.
 */
export async function recoverDataDir(dataDir: string): Promise<RecoverResult> {
  const target = resolve(dataDir);
  const parent = dirname(target);
  const base = basename(target);
  const names = await readdir(parent).catch(() => [] as string[]);
  const replaced = names.filter((n) => n.startsWith(replacedPrefix(base))).sort();
  let putBack = false;
  const exists = await lstat(target).then(
    () => true,
    () => false,
  );
  if (!exists && replaced.length > 0) {
    const newest = replaced.pop() as string;
    await rename(join(parent, newest), target);
    putBack = true;
  }
  const leftovers = [...replaced, ...names.filter((n) => n.startsWith(restoringPrefix(base)) || n.startsWith(backupPrefix(base)))];
  const removed: string[] = [];
  for (const name of leftovers) {
    await rm(join(parent, name), { recursive: true, force: true });
    removed.push(name);
  }
  return { putBack, removed };
}
