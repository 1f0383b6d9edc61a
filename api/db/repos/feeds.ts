import { withRelaxedDurability, type Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';
import { fromLocalUsers } from './follows.js';
import type { StatusRow } from './statuses.js';
import { liveColumnsSql, type LiveStatusRow, type VisibleSql } from './timelines.js';

/**
 * The materialised home feed (`home_feed`) and its per-user state (`feed_state`). Reads are
 * index-only keyset scans over the (account_id, status_id) primary key.
 */

/** A row of `feed_state`: present once a user's feed is known to be complete or being rebuilt. */
export interface FeedStateRow {
  account_id: string;
  regenerating: number;
  built_at: number | null;
}

/** What fan-out needs to know about one local follower of an author. */
export interface LocalFollowerRow {
  account_id: string;
  show_reblogs: number;
  languages: string | null;
}

/** A followed account, as the rebuild walks them. */
export interface FollowedRow {
  target_account_id: string;
  show_reblogs: number;
  languages: string | null;
}

/**
 * One page of a user's home feed, newest first, with what is rendered live for each status
 * (counters and the user's flags, see `LiveStatusRow`): an index-only keyset scan of home_feed
 * joined to the statuses it names, in one statement.
 */
export function homeFeedPage(db: Db, accountId: string, page: PageBounds, shown?: VisibleSql): LiveStatusRow[] {
  const p = pageSql('h.status_id', page);
  // `shown`: core's condition for what the user's blocks and mutes hide (read time, so a mute's end applies at once).
  const rows = db
    .query<LiveStatusRow>(
      `SELECT ${liveColumnsSql(true)} FROM home_feed h JOIN statuses s ON s.id = h.status_id LEFT JOIN statuses o ON o.id = s.reblog_of_id
       WHERE h.account_id = @viewer_id ${shown ? `AND ${shown('s')}` : ''} ${p.where} ${p.orderLimit}`,
    )
    .all({ viewer_id: accountId, ...p.params });
  return p.reverse ? rows.reverse() : rows;
}

/** Adds statuses to a user's home feed (already present ones are kept). */
export function insertHomeFeedEntries(db: Db, accountId: string, statusIds: readonly string[]): void {
  const q = db.query('INSERT OR IGNORE INTO home_feed (account_id, status_id) VALUES (@account_id, @status_id)');
  for (const statusId of statusIds) q.run({ account_id: accountId, status_id: statusId });
}

/** Removes one status from every home feed (used when it stops being visible to some). */
export function deleteHomeFeedEntry(db: Db, accountId: string, statusId: string): void {
  db.query('DELETE FROM home_feed WHERE account_id = @account_id AND status_id = @status_id').run({ account_id: accountId, status_id: statusId });
}

/** The users whose home feed holds a status. */
export function homeFeedHolders(db: Db, statusId: string): string[] {
  return db.query<{ account_id: string }>('SELECT account_id FROM home_feed WHERE status_id = @status_id').all({ status_id: statusId }).map((r) => r.account_id);
}

/** Removes everything an author posted or reblogged from one user's home feed (unfollow). */
export function deleteAuthorFromHomeFeed(db: Db, accountId: string, authorId: string): void {
  db.query(
    `DELETE FROM home_feed WHERE account_id = @account_id
     AND status_id IN (SELECT id FROM statuses WHERE account_id = @author_id)`,
  ).run({ account_id: accountId, author_id: authorId });
}

/** Empties a user's home feed (before a rebuild). */
export function clearHomeFeed(db: Db, accountId: string): void {
  db.query('DELETE FROM home_feed WHERE account_id = @account_id').run({ account_id: accountId });
}

/**
 * True when the status `statusId`, or a reblog of it, is among the `window` newest entries of the
 * user's feed (Mastodon's reblog fall-off: a boost of something just seen is not shown again).
 */
export function recentlyInHomeFeed(db: Db, accountId: string, statusId: string, window: number): boolean {
  return (
    db
      .query(
        `SELECT 1 FROM (SELECT status_id FROM home_feed WHERE account_id = @account_id ORDER BY status_id DESC LIMIT @window) f
         JOIN statuses s ON s.id = f.status_id
         WHERE s.id = @status_id OR s.reblog_of_id = @status_id LIMIT 1`,
      )
      .get({ account_id: accountId, status_id: statusId, window }) !== undefined
  );
}

/** The feed state of a user, if any. */
export function findFeedState(db: Db, accountId: string): FeedStateRow | undefined {
  return db.query<FeedStateRow>('SELECT * FROM feed_state WHERE account_id = @account_id').get({ account_id: accountId });
}

/** Creates or replaces a user's feed state. */
export function upsertFeedState(db: Db, accountId: string, regenerating: boolean, builtAt: number | null): void {
  db.query(
    `INSERT INTO feed_state (account_id, regenerating, built_at) VALUES (@account_id, @regenerating, @built_at)
     ON CONFLICT (account_id) DO UPDATE SET regenerating = excluded.regenerating, built_at = excluded.built_at`,
  ).run({ account_id: accountId, regenerating: regenerating ? 1 : 0, built_at: builtAt });
}

/** Creates a complete, empty feed state for a user unless one exists (a new user's feed is complete). */
export function ensureFeedState(db: Db, accountId: string, builtAt: number): void {
  db.query('INSERT OR IGNORE INTO feed_state (account_id, regenerating, built_at) VALUES (@account_id, 0, @built_at)').run({
    account_id: accountId,
    built_at: builtAt,
  });
}

/** Feeds that were left marked as regenerating (a rebuild interrupted by a stop). */
export function findRegeneratingFeeds(db: Db): string[] {
  return db.query<{ account_id: string }>('SELECT account_id FROM feed_state WHERE regenerating = 1').all().map((r) => r.account_id);
}

/** The local followers of an account (those with a user, hence a home feed), with their follow options. */
export function findLocalFollowers(db: Db, authorId: string): LocalFollowerRow[] {
  // Driven from whichever side is smaller (see fromLocalUsers).
  const sql = fromLocalUsers(db, authorId)
    ? `SELECT f.account_id, f.show_reblogs, f.languages FROM users u
       CROSS JOIN follows f ON f.account_id = u.account_id
       WHERE f.target_account_id = @author_id`
    : `SELECT f.account_id, f.show_reblogs, f.languages FROM follows f
       JOIN users u ON u.account_id = f.account_id
       WHERE f.target_account_id = @author_id`;
  return db.query<LocalFollowerRow>(sql).all({ author_id: authorId });
}

/** Of the given accounts, those that follow `targetId`. */
export function followersAmong(db: Db, targetId: string, accountIds: readonly string[]): Set<string> {
  if (accountIds.length === 0) return new Set();
  return new Set(
    db
      .query<{ account_id: string }>(
        `SELECT account_id FROM follows WHERE target_account_id = @target_id
         AND account_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))`,
      )
      .all({ target_id: targetId, ids: JSON.stringify(accountIds) })
      .map((r) => r.account_id),
  );
}

/** The accounts a user follows, with options, in id order (for a chunked rebuild). */
export function findFollowedAccounts(db: Db, accountId: string): FollowedRow[] {
  return db
    .query<FollowedRow>('SELECT target_account_id, show_reblogs, languages FROM follows WHERE account_id = @account_id ORDER BY target_account_id')
    .all({ account_id: accountId });
}

/** True when the account follows anyone. */
export function followsAnyone(db: Db, accountId: string): boolean {
  return db.query('SELECT 1 FROM follows WHERE account_id = @account_id LIMIT 1').get({ account_id: accountId }) !== undefined;
}

/** True when the account belongs to a local user (so it has a home feed). */
export function hasUser(db: Db, accountId: string): boolean {
  return db.query('SELECT 1 FROM users WHERE account_id = @account_id').get({ account_id: accountId }) !== undefined;
}

/** The recent statuses of `authorId` that `viewerId` may see (`visible`: core's rule), newest first. */
export function recentStatusesVisibleTo(db: Db, visible: VisibleSql, authorId: string, viewerId: string, limit: number): StatusRow[] {
  return db
    .query<StatusRow>(`SELECT s.* FROM statuses s WHERE s.account_id = @author_id AND ${visible('s')} ORDER BY s.id DESC LIMIT @limit`)
    .all({ author_id: authorId, viewer_id: viewerId, limit });
}

/** True when the status, or a boost of it, is anywhere in the user's feed already. */
export function inHomeFeed(db: Db, accountId: string, statusId: string): boolean {
  return (
    db
      .query(
        `SELECT 1 WHERE EXISTS (SELECT 1 FROM home_feed WHERE account_id = @account_id AND status_id = @status_id)
         OR EXISTS (SELECT 1 FROM statuses r JOIN home_feed h ON h.account_id = @account_id AND h.status_id = r.id
                    WHERE r.reblog_of_id = @status_id)`,
      )
      .get({ account_id: accountId, status_id: statusId }) !== undefined
  );
}

/** True when an account has statuses of its own. */
export function accountHasStatuses(db: Db, accountId: string): boolean {
  return db.query('SELECT 1 FROM statuses WHERE account_id = @account_id LIMIT 1').get({ account_id: accountId }) !== undefined;
}

/**
 * Runs `fn` in one transaction whose commit does not wait for the disk (synchronous=NORMAL for
 * that commit only), for derived rows that can be rebuilt: home feeds, conversations, the search
 * index. The write is still atomic; it becomes durable with the next fully synchronous commit (the
 * WAL is flushed as a whole). A status is acknowledged by its own, fully synchronous, commit.
 */
export function derivedTransaction<T>(db: Db, fn: () => T): T {
  return withRelaxedDurability(() => db.transaction(fn));
}

/** The tags of a status whose author may broadcast (not silenced), for the fan-out to tag followers. */
export function broadcastTagIds(db: Db, statusId: string, authorId: string): string[] {
  return db
    .query<{ tag_id: string }>(
      `SELECT st.tag_id FROM statuses_tags st JOIN accounts a ON a.id = @author_id
       WHERE st.status_id = @status_id AND a.silenced_at IS NULL AND a.suspended_at IS NULL`,
    )
    .all({ status_id: statusId, author_id: authorId })
    .map((r) => r.tag_id);
}

/** Recent public original statuses with a tag, by others than `accountId`, newest first. */
export function recentPublicTaggedStatuses(db: Db, tagId: string, accountId: string, limit: number): string[] {
  return db
    .query<{ id: string }>(
      `SELECT s.id FROM statuses_tags st JOIN statuses s ON s.id = st.status_id
       JOIN accounts a ON a.id = s.account_id AND a.silenced_at IS NULL AND a.suspended_at IS NULL
       WHERE st.tag_id = @tag_id AND s.visibility = 'public' AND s.reblog_of_id IS NULL AND s.account_id != @account_id
       ORDER BY st.status_id DESC LIMIT @limit`,
    )
    .all({ tag_id: tagId, account_id: accountId, limit })
    .map((r) => r.id);
}

/**
 * Removes from a user's feed what only a tag brought there: statuses with the tag by accounts
 * they do not follow and carrying no other tag they follow.
 */
export function deleteTagFromHomeFeed(db: Db, accountId: string, tagId: string): void {
  db.query(
    `DELETE FROM home_feed WHERE account_id = @account_id AND status_id IN (
       SELECT s.id FROM statuses_tags st JOIN statuses s ON s.id = st.status_id
       WHERE st.tag_id = @tag_id AND s.account_id != @account_id
       AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.account_id = @account_id AND f.target_account_id = s.account_id)
       AND NOT EXISTS (SELECT 1 FROM statuses_tags o JOIN tag_follows tf ON tf.tag_id = o.tag_id AND tf.account_id = @account_id
                       WHERE o.status_id = s.id AND o.tag_id != @tag_id))`,
  ).run({ account_id: accountId, tag_id: tagId });
}
