import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createGunzip } from 'node:zlib';
import Database from 'better-sqlite3';
import { asBackupError, BackupError, throwIfAborted } from './errors.js';
import { DATABASE_FILE, unsafeEntryPath } from './layout.js';
import { databaseSchemaVersion, MANIFEST_NAME, MAX_MANIFEST_BYTES, parseManifest, type Manifest } from './manifest.js';
import { readTar, TarError, type TarEntryHeader, type TarEntrySink } from './tar.js';

/** What reading an archive found: its manifest, every entry checked against it. */
export interface ReadArchive {
  manifest: Manifest;
  /** Size of the archive file. */
  archiveBytes: number;
}

/** Where the reader puts what it reads. */
export interface ReadTarget {
  /** Every file goes under this folder (a restore's new data directory). */
  extractAllTo?: string;
  /** Only the database goes to this file (a check). Ignored with `extractAllTo`. */
  databaseTo?: string;
}

/** Reads the first bytes of a file (fewer when it is shorter). */
async function head(path: string, n: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(n);
    const { bytesRead } = await handle.read(buffer, 0, n, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Writes an entry to a new file (never through an existing one), flushed to disk at its end. */
async function fileSink(target: string, header: TarEntryHeader, opened: Set<FileHandle>): Promise<TarEntrySink> {
  await mkdir(dirname(target), { recursive: true });
  // 'wx': a fresh file only, so a name met twice or anything already there is never written through.
  const handle = await open(target, 'wx', (header.mode & 0o777) | 0o600);
  opened.add(handle);
  return {
    async write(chunk) {
      let offset = 0;
      while (offset < chunk.length) offset += (await handle.write(chunk, offset, chunk.length - offset)).bytesWritten;
    },
    async end() {
      // A restore removes the old data once the new is in place: the new must be on the disk first.
      await handle.sync();
      if (header.mtime > 0) await handle.utimes(header.mtime, header.mtime);
      opened.delete(handle);
      await handle.close();
    },
  };
}

/** Turns what the decompressor and the tar reader throw into errors a person can read. */
function readingError(err: unknown, path: string): BackupError {
  if (err instanceof BackupError) return err;
  if (err instanceof TarError) {
    if (err.truncated) return new BackupError('damaged', `the backup ${path} is truncated (it ends before its last entry)`, { cause: err });
    return new BackupError('damaged', `the backup ${path} is damaged (${err.message})`, { cause: err });
  }
  const code = (err as NodeJS.ErrnoException | null)?.code ?? '';
  if (code === 'Z_BUF_ERROR' || /unexpected end of file/i.test(String((err as Error | null)?.message))) {
    return new BackupError('damaged', `the backup ${path} is truncated (its compressed data ends early)`, { cause: err });
  }
  if (code.startsWith('Z_') || code.startsWith('ERR_ZLIB')) return new BackupError('damaged', `the backup ${path} is damaged (its compressed data is corrupt)`, { cause: err });
  return asBackupError(err, `reading the backup ${path}`);
}

/**
 * Reads a whole archive, checking as it goes that every entry is a plain file with a safe path
 * (no `..`, no absolute path, nothing outside the data a backup holds, no links), and after it
 * that the manifest is there, is of a known version, and matches the entries exactly: every file
 * listed is present with its size and SHA-256, and nothing is present that is not listed. Files
 * are written only under `target.extractAllTo` (or just the database to `target.databaseTo`).
 * `onFraction` follows the compressed bytes read.
 */
export async function readArchive(archivePath: string, target: ReadTarget, onFraction: (f: number) => void, signal?: AbortSignal): Promise<ReadArchive> {
  const info = await stat(archivePath).catch(() => null);
  if (!info) throw new BackupError('not-archive', `there is no file at ${archivePath}`);
  if (!info.isFile()) throw new BackupError('not-archive', `${archivePath} is not a file`);
  const magic = await head(archivePath, 2);
  if (magic.length < 2 || magic[0] !== 0x1f || magic[1] !== 0x8b) throw new BackupError('not-archive', `${archivePath} is not a Hearth backup (not a compressed archive)`);

  const found = new Map<string, { size: number; sha256: string }>();
  const seen = new Set<string>();
  const opened = new Set<FileHandle>();
  let manifestText: Buffer | null = null;
  const file = createReadStream(archivePath);
  const gunzip = createGunzip();
  let read = 0;
  file.on('data', (chunk) => {
    read += chunk.length;
    onFraction(read / Math.max(1, info.size));
  });
  file.on('error', (err) => gunzip.destroy(err));
  file.pipe(gunzip);

  const onEntry = async (header: TarEntryHeader): Promise<TarEntrySink> => {
    throwIfAborted(signal);
    const reason = unsafeEntryPath(header.path, MANIFEST_NAME);
    if (reason) throw new BackupError('unsafe', `the backup holds an unsafe entry, ${reason}: ${JSON.stringify(header.path)}`);
    if (header.type !== 'file') throw new BackupError('unsafe', `the backup holds a link or special entry (${JSON.stringify(header.path)}), which a Hearth backup never has`);
    // Case-insensitive: on macOS and Windows two names differing in case are one file.
    const key = header.path.toLowerCase();
    if (seen.has(key)) throw new BackupError('damaged', `the backup holds ${header.path} twice`);
    seen.add(key);
    if (header.path === MANIFEST_NAME) {
      if (header.size > MAX_MANIFEST_BYTES) throw new BackupError('damaged', 'the backup\'s manifest is too large');
      const parts: Buffer[] = [];
      return {
        write: (chunk) => void parts.push(Buffer.from(chunk)),
        end: () => void (manifestText = Buffer.concat(parts)),
      };
    }
    const hash = createHash('sha256');
    let size = 0;
    const destination = target.extractAllTo ? join(target.extractAllTo, ...header.path.split('/')) : header.path === DATABASE_FILE ? target.databaseTo : undefined;
    const inner = destination ? await fileSink(destination, header, opened) : null;
    return {
      async write(chunk) {
        hash.update(chunk);
        size += chunk.length;
        if (inner) await inner.write(chunk);
      },
      async end() {
        found.set(header.path, { size, sha256: hash.digest('hex') });
        if (inner) await inner.end();
      },
    };
  };

  try {
    await readTar(gunzip, onEntry);
  } catch (err) {
    throw readingError(err, archivePath);
  } finally {
    file.destroy();
    gunzip.destroy();
    await Promise.all([...opened].map((h) => h.close().catch(() => undefined)));
  }

  if (manifestText === null) throw new BackupError('not-archive', `${archivePath} is not a Hearth backup (it has no manifest)`);
  const manifest = parseManifest((manifestText as Buffer).toString('utf8'));
  const listed = new Set<string>();
  for (const entry of manifest.files) {
    if (listed.has(entry.path)) throw new BackupError('damaged', `the backup's manifest lists ${entry.path} twice`);
    listed.add(entry.path);
    const got = found.get(entry.path);
    if (!got) throw new BackupError('damaged', `the backup lacks ${entry.path}, which its manifest lists`);
    if (got.size !== entry.size) throw new BackupError('damaged', `${entry.path} in the backup does not match its manifest (${got.size} bytes instead of ${entry.size}): the archive was altered or damaged`);
    if (got.sha256 !== entry.sha256) throw new BackupError('damaged', `${entry.path} in the backup does not match its manifest (its SHA-256 differs): the archive was altered or damaged`);
  }
  for (const path of found.keys()) {
    if (!listed.has(path)) throw new BackupError('damaged', `the backup holds ${path}, which its manifest does not list`);
  }
  if (!found.has(DATABASE_FILE)) throw new BackupError('damaged', 'the backup holds no database');
  return { manifest, archiveBytes: info.size };
}

/**
 * Checks an extracted database: it opens, passes `PRAGMA integrity_check`, records its migrations,
 * agrees with the manifest, and is no newer than this build's schema (`knownSchemaVersion`; an
 * older one is fine, the server migrates it at start).
 */
export function checkDatabase(file: string, manifest: Manifest, knownSchemaVersion: number): void {
  let db: Database.Database;
  try {
    db = new Database(file, { fileMustExist: true });
  } catch (err) {
    throw new BackupError('damaged', `the database in the backup cannot be opened (${(err as Error).message})`, { cause: err });
  }
  try {
    let rows: { integrity_check: string }[];
    try {
      rows = db.pragma('integrity_check') as { integrity_check: string }[];
    } catch (err) {
      throw new BackupError('damaged', `the database in the backup cannot be read (${(err as Error).message})`, { cause: err });
    }
    if (rows.length !== 1 || rows[0]?.integrity_check !== 'ok') {
      const problems = rows.slice(0, 3).map((r) => r.integrity_check).join('; ');
      throw new BackupError('damaged', `the database in the backup fails SQLite's integrity check (${problems})`);
    }
    const version = databaseSchemaVersion(db);
    if (version > knownSchemaVersion) {
      throw new BackupError('newer-schema', `this backup comes from a newer Hearth (database schema ${version}; this version knows up to ${knownSchemaVersion}): update Hearth, then restore it`);
    }
    if (version !== manifest.schemaVersion) throw new BackupError('damaged', `the backup's database (schema ${version}) does not match its manifest (schema ${manifest.schemaVersion})`);
  } finally {
    db.close();
  }
}
