import { newestStatusId, statusesSince, unindexedStatusIds } from '../../db/repos/repair.js';
import { getSetting, setSetting } from '../../db/repos/settings.js';
import { now } from '../../util/clock.js';
import { minIdAtTime } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { indexStatus } from '../search/index.js';
import { fanOutToHomes } from './fanout.js';

/**
 * Start-up repair of derived rows. Fan-out and search indexing commit without waiting for the disk
 * (feeds.ts `derivedTransaction`), so a power loss can lose the newest of them while the statuses
 * themselves (committed fully synchronously) survive. At start-up, before serving:
 * - the statuses of the last RECENT_MS are fanned out and indexed again (both are idempotent:
 *   feed rows are inserted once, an index entry is replaced);
 * - statuses above the index's high-water mark that have no index entry are indexed, and the mark
 *   moves to the newest status, so later starts look only at what came since.
 * Direct conversations are not replayed: doing so again would mark read threads unread.
 */

/** How far back the feeds and the index are redone at start-up. */
export const RECENT_MS = 10 * 60_000;
/** The settings key of the search index's high-water mark (a status id). */
export const SEARCH_MARK_KEY = 'search.indexed_through';
const CHUNK = 500;

/** What a repair did (for tests and logs). */
export interface RepairReport {
  /** Recent statuses fanned out and indexed again. */
  replayed: number;
  /** Statuses indexed by the back-fill above the high-water mark. */
  backfilled: number;
}

/** Runs the start-up repair (see above) in one transaction; createApp runs it through installTimelines. */
export function repairDerivedData(deps: Deps): RepairReport {
  const db = deps.db;
  return db.transaction(() => {
    const recent = statusesSince(db, minIdAtTime(now() - RECENT_MS));
    for (const status of recent) {
      fanOutToHomes(deps, status);
      indexStatus(deps, status.id);
    }
    let backfilled = 0;
    let mark = getSetting<string>(db, SEARCH_MARK_KEY) ?? '0';
    for (;;) {
      const ids = unindexedStatusIds(db, mark, CHUNK);
      for (const id of ids) indexStatus(deps, id);
      backfilled += ids.length;
      if (ids.length < CHUNK) break;
      mark = ids[ids.length - 1] ?? mark;
    }
    const newest = newestStatusId(db);
    if (newest !== null) setSetting(db, SEARCH_MARK_KEY, newest);
    return { replayed: recent.length, backfilled };
  });
}
