import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import Database from 'better-sqlite3';
import { asBackupError, BackupError, throwIfAborted } from './errors.js';
import { refuseArchiveInside, syncFolder } from './fs-util.js';
import { DATABASE_FILE, listDataFiles, type DataFile } from './layout.js';
import { ARCHIVE_FORMAT, databaseSchemaVersion, FORMAT_VERSION, hearthVersion, MANIFEST_NAME, type Manifest, type ManifestFile } from './manifest.js';
import { ProgressReporter, type ProgressCallback } from './progress.js';
import { tarEnd, tarHeader, tarPadding } from './tar.js';

/** What `backupDataDir` needs. */
export interface BackupOptions {
  /** The instance's data directory (its server may be running on it). */
  dataDir: string;
  /** Where the archive goes (outside the data directory); an existing file there is replaced. */
  archivePath: string;
  /** Progress over the database's pages, then the archived bytes. */
  onProgress?: ProgressCallback;
  /** Stops the backup; nothing is left under `archivePath`. */
  signal?: AbortSignal;
  /**
   * Database pages the copy takes per step at first (default 1024: 4 MiB at the default page
   * size); smaller gives a finer progress bar on a small database, and the tests a copy that
   * really runs in many steps between the server's writes.
   */
  firstStepPages?: number;
}

/** A finished backup. */
export interface BackupResult {
  archivePath: string;
  manifest: Manifest;
  /** Size of the archive file. */
  archiveBytes: number;
}

/** Bytes read from a file per step while archiving it. */
const CHUNK = 256 * 1024;
/** Database pages copied per step at first (4 MiB at the default page size). */
const FIRST_STEP_PAGES = 1024;
/** The largest step better-sqlite3 accepts: the whole database in one step. */
const MAX_STEP_PAGES = 0x7fffffff;

/**
 * Copies the live database with SQLite's online backup from a connection of its own, while the
 * server goes on writing through its connection (in another process in the app; in the same
 * process in the tests). The copy is a snapshot of one moment: every transaction committed before
 * it, none after.
 *
 * SQLite restarts an online backup from the first page whenever another connection writes to the
 * source between two steps, so under steady writes small steps might never finish. Each restart
 * makes the steps four times bigger, until one step copies the whole database at once (a read
 * transaction, which in WAL mode does not hold up the server's writes).
 */
async function snapshotDatabase(source: string, target: string, firstStep: number, onFraction: (f: number) => void, signal: AbortSignal | undefined): Promise<void> {
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    let step = Math.max(1, Math.min(MAX_STEP_PAGES, Math.floor(firstStep)));
    let lastCopied = -1;
    await db.backup(target, {
      progress: ({ totalPages, remainingPages }) => {
        throwIfAborted(signal);
        // Pages copied so far: after a restart, no more than the one step since it (the database
        // may have grown meanwhile, so the remaining count alone does not show a restart).
        const copied = totalPages - remainingPages;
        if (copied <= lastCopied) step = Math.min(step * 4, MAX_STEP_PAGES);
        lastCopied = copied;
        onFraction(totalPages > 0 ? 1 - remainingPages / totalPages : 0);
        return step;
      },
    });
  } finally {
    db.close();
  }
}

/**
 * Makes the copy a self-contained file (out of WAL mode: no `-wal` or `-shm` needed beside it
 * wherever it is opened; the server turns WAL on again when it opens it) and reads its schema
 * version for the manifest.
 */
function settleCopy(file: string): number {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
    return databaseSchemaVersion(db);
  } finally {
    db.close();
  }
}

/**
 * The archive as a stream of tar blocks: each file (header, content, padding), hashed as it is
 * read, then the manifest with every hash, then the end marker. A file listed but deleted before
 * it is opened (media removed after the database copy was taken) is left out, as the copy's
 * moment of time would not have it for long either; the database copy is never missing. Each
 * archived file is added to `listed` (the manifest's list) as it is done.
 */
async function* archiveBlocks(
  files: readonly DataFile[],
  manifest: Omit<Manifest, 'files'>,
  listed: ManifestFile[],
  onBytes: (n: number) => void,
  signal: AbortSignal | undefined,
): AsyncGenerator<Buffer> {
  for (const file of files) {
    throwIfAborted(signal);
    const handle = await open(file.abs, 'r').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' && file.path !== DATABASE_FILE) return null;
      throw err;
    });
    if (!handle) {
      onBytes(file.size);
      continue;
    }
    try {
      const info = await handle.stat();
      yield tarHeader({ path: file.path, size: info.size, mode: info.mode & 0o777, mtime: info.mtimeMs / 1000 });
      const hash = createHash('sha256');
      let left = info.size;
      while (left > 0) {
        throwIfAborted(signal);
        const buffer = Buffer.allocUnsafe(Math.min(CHUNK, left));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        // Files are written whole under a temporary name and renamed into place, so one that shrinks
        // while open is something else writing into the data directory: not a copy to trust.
        if (bytesRead === 0) throw new BackupError('unsupported', `${file.abs} shrank while it was being archived`);
        const piece = buffer.subarray(0, bytesRead);
        hash.update(piece);
        left -= bytesRead;
        onBytes(bytesRead);
        yield piece;
      }
      const padding = tarPadding(info.size);
      if (padding.length > 0) yield padding;
      listed.push({ path: file.path, size: info.size, sha256: hash.digest('hex') });
    } finally {
      await handle.close();
    }
  }
  const text = Buffer.from(`${JSON.stringify({ ...manifest, files: listed }, null, 1)}\n`, 'utf8');
  yield tarHeader({ path: MANIFEST_NAME, size: text.length, mode: 0o600 });
  yield text;
  const padding = tarPadding(text.length);
  if (padding.length > 0) yield padding;
  yield tarEnd();
}

/**
 * Backs up a data directory into one archive (gzip-compressed tar): a consistent copy of the
 * database made with SQLite's online backup while the server keeps running and writing, then the
 * config file, the certificates and the media folders (see layout.ts for what is in and out, and
 * why), then `manifest.json` with every file's size and SHA-256. The database is copied first and
 * the files listed after, so the files its rows refer to are there (unless deleted meanwhile).
 *
 * The database copy is made in a temporary folder beside the data directory (same disk, as big as
 * the database), the archive is written under a temporary name beside `archivePath` and renamed
 * into place only once it is complete and flushed to disk: there is never half an archive under
 * the final name. The archive is readable by its owner only (it holds the instance's keys).
 * Progress goes from 0 to 1 over the database pages, then the archived bytes.
 */
export async function backupDataDir(options: BackupOptions): Promise<BackupResult> {
  try {
    return await backup(options);
  } catch (err) {
    throw asBackupError(err, `writing the backup ${options.archivePath}`);
  }
}

/** The work of `backupDataDir` (which turns unexpected errors into `io` ones). */
async function backup(options: BackupOptions): Promise<BackupResult> {
  const dataDir = resolve(options.dataDir);
  const archivePath = resolve(options.archivePath);
  const progress = new ProgressReporter(options.onProgress);
  const dbFile = join(dataDir, DATABASE_FILE);
  const dbInfo = await stat(dbFile).catch(() => null);
  if (!dbInfo?.isFile()) throw new BackupError('invalid-target', `there is no Hearth database in ${dataDir}`);
  await refuseArchiveInside(archivePath, dataDir);
  progress.report(0, 'database');

  // Listed once before the copy only to weigh the progress bar (and to refuse links early).
  const estimate = (await listDataFiles(dataDir)).reduce((n, f) => n + f.size, 0);
  // The database is read twice (copied, then archived); its share of the bar is weighed so.
  const databaseShare = dbInfo.size / Math.max(1, 2 * dbInfo.size + estimate);
  const work = await mkdtemp(join(dirname(dataDir), `.${basename(dataDir)}.backup-`));
  const part = `${archivePath}.${randomBytes(6).toString('hex')}.part`;
  try {
    const copy = join(work, DATABASE_FILE);
    await snapshotDatabase(dbFile, copy, options.firstStepPages ?? FIRST_STEP_PAGES, (f) => progress.report(databaseShare * f, 'database'), options.signal);
    const schemaVersion = settleCopy(copy);
    const createdAt = new Date().toISOString();
    const files: DataFile[] = [{ path: DATABASE_FILE, abs: copy, size: (await stat(copy)).size }, ...(await listDataFiles(dataDir))];
    const total = Math.max(1, files.reduce((n, f) => n + f.size, 0));
    let archived = 0;
    const onBytes = (n: number) => {
      archived += n;
      // Short of 1 until the archive is in place.
      progress.report(Math.min(0.999, databaseShare + (1 - databaseShare) * (archived / total)), 'files');
    };
    const manifest: Omit<Manifest, 'files'> = {
      format: ARCHIVE_FORMAT,
      formatVersion: FORMAT_VERSION,
      hearthVersion: hearthVersion(),
      createdAt,
      schemaVersion,
      database: DATABASE_FILE,
    };
    const listed: ManifestFile[] = [];
    const blocks = archiveBlocks(files, manifest, listed, onBytes, options.signal);
    // Level 3: media (JPEG, MP4) does not compress; the database does, well enough at this level,
    // and a higher level would make a large backup several times slower.
    await pipeline(blocks, createGzip({ level: 3 }), createWriteStream(part, { mode: 0o600, flush: true }));
    await rename(part, archivePath);
    await syncFolder(dirname(archivePath));
    const archiveBytes = (await stat(archivePath)).size;
    progress.done();
    return { archivePath, manifest: { ...manifest, files: listed }, archiveBytes };
  } catch (err) {
    await rm(part, { force: true });
    throw err;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
