import { open, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { BackupError } from './errors.js';

/** Whether `child` is `parent` or lies under it (both absolute, already resolved). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The real path of a file that may not exist yet: its folder's real path and its own name. */
export async function realPathOfFile(file: string): Promise<string> {
  const folder = await realpath(dirname(file)).catch(() => {
    throw new BackupError('invalid-target', `the folder ${dirname(file)} does not exist`);
  });
  return join(folder, basename(file));
}

/**
 * Refuses an archive inside the data directory: a backup there is lost with the data it should
 * save, and a restore would delete it with the old data. Compared through real paths, so a link
 * to the data directory does not hide it.
 */
export async function refuseArchiveInside(archivePath: string, dataDir: string): Promise<void> {
  const data = await realpath(dataDir).catch(() => null);
  if (data === null) return;
  const archive = await realPathOfFile(archivePath);
  if (isInside(data, archive)) throw new BackupError('invalid-target', `the archive ${archivePath} is inside the data directory ${dataDir}: choose a place outside it`);
}

/**
 * Flushes a folder's entries (a rename into it) to the disk where the platform allows it; on
 * Windows folders cannot be opened for that, and a failure here loses nothing that was not
 * already at risk, so it is ignored.
 */
export async function syncFolder(folder: string): Promise<void> {
  if (process.platform === 'win32') return;
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // See above.
  }
}
