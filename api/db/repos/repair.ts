import type { Db } from '../connection.js';
import type { StatusRow } from './statuses.js';

/** Statuses with ids from `minId` on, oldest first (the start-up repair of derived rows). */
export function statusesSince(db: Db, minId: string): StatusRow[] {
  return db.query<StatusRow>('SELECT * FROM statuses WHERE id >= @min_id ORDER BY id').all({ min_id: minId });
}

/**
 * Original statuses (not boosts) above `afterId` that have no row in the full-text index, oldest
 * first, at most `limit`.
 */
export function unindexedStatusIds(db: Db, afterId: string, limit: number): string[] {
  return db
    .query<{ id: string }>(
      `SELECT s.id FROM statuses s WHERE s.id > @after_id AND s.reblog_of_id IS NULL
       AND NOT EXISTS (SELECT 1 FROM statuses_fts f WHERE f.rowid = s.id) ORDER BY s.id LIMIT @limit`,
    )
    .all({ after_id: afterId, limit })
    .map((r) => r.id);
}

/** The newest status id, or null when there are none. */
export function newestStatusId(db: Db): string | null {
  return db.query<{ id: string }>('SELECT id FROM statuses ORDER BY id DESC LIMIT 1').get()?.id ?? null;
}
