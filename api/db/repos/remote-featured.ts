import type { Db } from '../connection.js';

/**
 * What a remote account features, as synchronised from its `featured` and `featuredTags`
 * collections: the queries the sync needs beyond those of pins and featured tags themselves.
 */

/** The ids of the statuses an account has pinned (any visibility). */
export function pinnedStatusIdsOf(db: Db, accountId: string): string[] {
  return db.query<{ status_id: string }>('SELECT status_id FROM status_pins WHERE account_id = @account_id').all({ account_id: accountId }).map((r) => r.status_id);
}

/** An account's featured tags as (featured tag id, tag id). */
export function featuredTagIdsOf(db: Db, accountId: string): { id: string; tag_id: string }[] {
  return db.query<{ id: string; tag_id: string }>('SELECT id, tag_id FROM featured_tags WHERE account_id = @account_id').all({ account_id: accountId });
}
