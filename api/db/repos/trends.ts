import type { Db } from '../connection.js';
import type { PageSql } from '../paging.js';
import type { PreviewCardRow } from './preview-cards.js';

/**
 * The activity trends are computed from: public statuses (not boosts) of accounts that are neither
 * suspended nor silenced, from `@since_id` on (ids sort by creation time, so an id range is a time
 * window), read through the `statuses_public` index.
 */
const RECENT_PUBLIC = `s.visibility = 'public' AND s.reblog_of_id IS NULL AND s.id >= @since_id
  AND a.suspended_at IS NULL AND a.silenced_at IS NULL`;

/** One day of use of a tag or link: statuses and distinct accounts, by UTC day number. */
export interface DailyUse {
  /** The tag or card id. */
  key_id: string;
  /** Days since the epoch (UTC). */
  day: number;
  uses: number;
  accounts: number;
}

/** How many distinct accounts used a tag or link over the whole window, and its newest status. */
export interface WindowUse {
  /** The tag or card id. */
  key_id: string;
  accounts: number;
  last_status_id: string;
}

/** Per-day use of each usable, listable hashtag in recent public statuses. */
export function recentTagDailyUses(db: Db, sinceId: string): DailyUse[] {
  return db
    .query<DailyUse>(
      `SELECT st.tag_id AS key_id, s.created_at / 86400000 AS day, count(*) AS uses, count(DISTINCT s.account_id) AS accounts
       FROM statuses s JOIN accounts a ON a.id = s.account_id
       JOIN statuses_tags st ON st.status_id = s.id JOIN tags t ON t.id = st.tag_id
       WHERE ${RECENT_PUBLIC} AND t.usable = 1 AND t.listable = 1
       GROUP BY st.tag_id, day`,
    )
    .all({ since_id: sinceId });
}

/** Hashtags used by at least `minAccounts` distinct accounts in recent public statuses. */
export function recentTagWindowUses(db: Db, sinceId: string, minAccounts: number): WindowUse[] {
  return db
    .query<WindowUse>(
      `SELECT st.tag_id AS key_id, count(DISTINCT s.account_id) AS accounts, max(s.id) AS last_status_id
       FROM statuses s JOIN accounts a ON a.id = s.account_id
       JOIN statuses_tags st ON st.status_id = s.id JOIN tags t ON t.id = st.tag_id
       WHERE ${RECENT_PUBLIC} AND t.usable = 1 AND t.listable = 1
       GROUP BY st.tag_id HAVING count(DISTINCT s.account_id) >= @min_accounts`,
    )
    .all({ since_id: sinceId, min_accounts: minAccounts });
}

// Links trend from the statuses of accounts that opted into discovery and are not marked
// sensitive, and only from link cards that have a title (as Mastodon's trends take them).
const LINK_SOURCE = `FROM statuses s JOIN accounts a ON a.id = s.account_id
  JOIN preview_cards_statuses pcs ON pcs.status_id = s.id JOIN preview_cards c ON c.id = pcs.preview_card_id
  WHERE ${RECENT_PUBLIC} AND a.discoverable = 1 AND a.sensitized_at IS NULL AND c.type = 'link' AND c.title <> ''`;

/** Per-day use of each link card in recent public statuses of discoverable accounts. */
export function recentLinkDailyUses(db: Db, sinceId: string): DailyUse[] {
  return db
    .query<DailyUse>(
      `SELECT pcs.preview_card_id AS key_id, s.created_at / 86400000 AS day, count(*) AS uses, count(DISTINCT s.account_id) AS accounts
       ${LINK_SOURCE} GROUP BY pcs.preview_card_id, day`,
    )
    .all({ since_id: sinceId });
}

/** Link cards shared by at least `minAccounts` distinct discoverable accounts in recent public statuses. */
export function recentLinkWindowUses(db: Db, sinceId: string, minAccounts: number): WindowUse[] {
  return db
    .query<WindowUse>(
      `SELECT pcs.preview_card_id AS key_id, count(DISTINCT s.account_id) AS accounts, max(s.id) AS last_status_id
       ${LINK_SOURCE} GROUP BY pcs.preview_card_id HAVING count(DISTINCT s.account_id) >= @min_accounts`,
    )
    .all({ since_id: sinceId, min_accounts: minAccounts });
}

/** A recent status with the number of distinct accounts (its author aside) that favourited or boosted it. */
export interface StatusInteractions {
  id: string;
  created_at: number;
  interactions: number;
}

/**
 * Recent statuses that may trend (public, original, not replies, without a content warning or a
 * sensitive mark, by discoverable accounts in good standing) and that at least `minInteractions`
 * other accounts favourited or boosted.
 */
export function recentStatusInteractions(db: Db, sinceId: string, minInteractions: number): StatusInteractions[] {
  return db
    .query<StatusInteractions>(
      `SELECT id, created_at, interactions FROM (
         SELECT s.id, s.created_at,
           (SELECT count(*) FROM (
              SELECT f.account_id FROM favourites f WHERE f.status_id = s.id AND f.account_id <> s.account_id
              UNION
              SELECT r.account_id FROM statuses r WHERE r.reblog_of_id = s.id AND r.account_id <> s.account_id)) AS interactions
         FROM statuses s JOIN accounts a ON a.id = s.account_id
         WHERE ${RECENT_PUBLIC} AND s.in_reply_to_id IS NULL AND s.in_reply_to_uri IS NULL
           AND s.spoiler_text = '' AND s.sensitive = 0 AND a.discoverable = 1 AND a.sensitized_at IS NULL)
       WHERE interactions >= @min_interactions`,
    )
    .all({ since_id: sinceId, min_interactions: minInteractions });
}

/** Public statuses (not boosts) of discoverable accounts in good standing that share a link card, newest first. */
export function linkStatusIds(
  db: Db,
  cardId: string,
  visible: (alias: string) => string,
  viewerId: string | null,
  page: PageSql,
): string[] {
  return db
    .query<{ id: string }>(
      `SELECT s.id FROM preview_cards_statuses pcs JOIN statuses s ON s.id = pcs.status_id JOIN accounts a ON a.id = s.account_id
       WHERE pcs.preview_card_id = @card_id AND s.visibility = 'public' AND s.reblog_of_id IS NULL
         AND a.discoverable = 1 AND a.suspended_at IS NULL AND a.silenced_at IS NULL AND ${visible('s')} ${page.where} ${page.orderLimit}`,
    )
    .all({ card_id: cardId, viewer_id: viewerId, ...page.params })
    .map((r) => r.id);
}

/** Link cards by id (order not kept). */
export function findCardsByIds(db: Db, ids: readonly string[]): PreviewCardRow[] {
  if (ids.length === 0) return [];
  return db.query<PreviewCardRow>('SELECT * FROM preview_cards WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))').all(JSON.stringify([...new Set(ids)]));
}
