import { readdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  deleteMediaRow,
  findMaintenanceRun,
  findReferencedKeys,
  findStagedPaths,
  findStaleUnattachedMedia,
  recordMaintenanceRun,
} from '../../db/repos/media-uploads.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { mediaStorage } from './storage.js';

/**
 * The media clean-up, a scheduler task: uploads nobody attached within a day are deleted with
 * their files, and files no row refers to any more (replaced avatars, deleted statuses' media,
 * crashed writes) are removed. The time of the last run is kept in the database, so the hourly
 * rhythm holds across restarts and a clean-up that was due while the instance was off runs at
 * start.
 */

const TASK = 'cleanup';
/** How often the clean-up runs. */
export const CLEANUP_INTERVAL_MS = 60 * 60 * 1000;
/** How long an upload may stay unattached. */
export const UNATTACHED_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** Files younger than this are left alone: they may belong to an upload being processed. */
const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;
/** Rows deleted per run at most (the next run takes the rest). */
const BATCH = 500;

/** What a clean-up removed. */
export interface CleanupReport {
  media: number;
  orphanFiles: number;
  stagedFiles: number;
}

/** Runs the clean-up now, whatever the time of the last run. */
export async function cleanUpMediaNow(deps: Deps): Promise<CleanupReport> {
  const at = now();
  const storage = mediaStorage(deps);
  const report: CleanupReport = { media: 0, orphanFiles: 0, stagedFiles: 0 };

  for (const row of findStaleUnattachedMedia(deps.db, at - UNATTACHED_MAX_AGE_MS, BATCH)) {
    deleteMediaRow(deps.db, row.id);
    await storage.remove([row.file_key, row.preview_key]);
    report.media++;
  }

  // Read the referenced keys after the deletions, so the files of deleted rows count as orphans
  // too (they were removed above already, unless that failed half-way).
  const referenced = findReferencedKeys(deps.db);
  for await (const file of storage.walk()) {
    if (referenced.has(file.key) || file.mtimeMs > at - ORPHAN_MIN_AGE_MS) continue;
    // By path, not key: a leftover temporary file has no valid key.
    await rm(file.path, { force: true });
    await storage.pruneDirs(dirname(file.path));
    report.orphanFiles++;
  }

  const staged = findStagedPaths(deps.db);
  const entries = await readdir(storage.staging).catch(() => [] as string[]);
  for (const name of entries) {
    const path = join(storage.staging, name);
    if (staged.has(path)) continue;
    const s = await stat(path).catch(() => null);
    if (s && s.mtimeMs < at - UNATTACHED_MAX_AGE_MS) {
      await rm(path, { force: true, recursive: true });
      report.stagedFiles++;
    }
  }

  recordMaintenanceRun(deps.db, TASK, at);
  return report;
}

/** Scheduler task: runs the clean-up when an hour has passed since the last run (or never ran). */
export async function cleanUpMedia(deps: Deps): Promise<CleanupReport | null> {
  const last = findMaintenanceRun(deps.db, TASK);
  if (last !== null && now() - last < CLEANUP_INTERVAL_MS) return null;
  return cleanUpMediaNow(deps);
}
