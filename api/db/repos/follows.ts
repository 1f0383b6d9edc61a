import type { Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';

/** A row of `follows`: `account_id` follows `target_account_id`. */
export interface FollowRow {
  id: string;
  account_id: string;
  target_account_id: string;
  show_reblogs: number;
  notify: number;
  /** JSON array of language codes, or null for all languages. */
  languages: string | null;
  uri: string | null;
  created_at: number;
  updated_at: number;
}

/** A row of `follow_requests`: a pending follow, with the options it will take once accepted. */
export type FollowRequestRow = FollowRow;

/** The options a follow or request carries. */
export interface FollowOptionsRow {
  show_reblogs: number;
  notify: number;
  languages: string | null;
}

/** The follow of `accountId` to `targetAccountId`, if any. */
export function findFollow(db: Db, accountId: string, targetAccountId: string): FollowRow | undefined {
  return db
    .query<FollowRow>('SELECT * FROM follows WHERE account_id = @account_id AND target_account_id = @target_account_id')
    .get({ account_id: accountId, target_account_id: targetAccountId });
}

/** The pending follow request of `accountId` to `targetAccountId`, if any. */
export function findFollowRequest(db: Db, accountId: string, targetAccountId: string): FollowRequestRow | undefined {
  return db
    .query<FollowRequestRow>('SELECT * FROM follow_requests WHERE account_id = @account_id AND target_account_id = @target_account_id')
    .get({ account_id: accountId, target_account_id: targetAccountId });
}

/** Inserts a follow row. */
export function insertFollow(db: Db, row: FollowRow): void {
  db.query(
    `INSERT INTO follows (id, account_id, target_account_id, show_reblogs, notify, languages, uri, created_at, updated_at)
     VALUES (@id, @account_id, @target_account_id, @show_reblogs, @notify, @languages, @uri, @created_at, @updated_at)`,
  ).run({ ...row });
}

/** Inserts a follow request row. */
export function insertFollowRequest(db: Db, row: FollowRequestRow): void {
  db.query(
    `INSERT INTO follow_requests (id, account_id, target_account_id, show_reblogs, notify, languages, uri, created_at, updated_at)
     VALUES (@id, @account_id, @target_account_id, @show_reblogs, @notify, @languages, @uri, @created_at, @updated_at)`,
  ).run({ ...row });
}

/** Changes the options of an existing follow. */
export function updateFollowOptions(db: Db, id: string, options: FollowOptionsRow, updatedAt: number): void {
  db.query('UPDATE follows SET show_reblogs = @show_reblogs, notify = @notify, languages = @languages, updated_at = @updated_at WHERE id = @id').run({
    ...options,
    updated_at: updatedAt,
    id,
  });
}

/** Changes the options of a pending follow request. */
export function updateFollowRequestOptions(db: Db, id: string, options: FollowOptionsRow, updatedAt: number): void {
  db.query(
    'UPDATE follow_requests SET show_reblogs = @show_reblogs, notify = @notify, languages = @languages, updated_at = @updated_at WHERE id = @id',
  ).run({ ...options, updated_at: updatedAt, id });
}

/** Deletes a follow by id. */
export function deleteFollow(db: Db, id: string): void {
  db.query('DELETE FROM follows WHERE id = @id').run({ id });
}

/** Deletes a follow request by id. */
export function deleteFollowRequest(db: Db, id: string): void {
  db.query('DELETE FROM follow_requests WHERE id = @id').run({ id });
}

/**
 * Moves the followers/following counters after a follow is made (+1) or removed (-1); counters
 * never go below zero (remote counts may already be off).
 */
export function adjustFollowCounts(db: Db, accountId: string, targetAccountId: string, delta: 1 | -1): void {
  db.query('UPDATE accounts SET following_count = max(0, following_count + @delta) WHERE id = @account_id').run({ delta, account_id: accountId });
  db.query('UPDATE accounts SET followers_count = max(0, followers_count + @delta) WHERE id = @account_id').run({
    delta,
    account_id: targetAccountId,
  });
}

/** The viewer's follows of the given accounts, keyed by target id. */
export function followsOf(db: Db, accountId: string, targetIds: readonly string[]): Map<string, FollowRow> {
  const rows = db
    .query<FollowRow>(
      `SELECT * FROM follows WHERE account_id = @account_id
       AND target_account_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))`,
    )
    .all({ account_id: accountId, ids: JSON.stringify(targetIds) });
  return new Map(rows.map((r) => [r.target_account_id, r]));
}

/** The viewer's pending requests to the given accounts, keyed by target id. */
export function followRequestsOf(db: Db, accountId: string, targetIds: readonly string[]): Map<string, FollowRequestRow> {
  const rows = db
    .query<FollowRequestRow>(
      `SELECT * FROM follow_requests WHERE account_id = @account_id
       AND target_account_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))`,
    )
    .all({ account_id: accountId, ids: JSON.stringify(targetIds) });
  return new Map(rows.map((r) => [r.target_account_id, r]));
}

/** Which of the given accounts follow `accountId`. */
export function followersAmong(db: Db, accountId: string, ids: readonly string[]): Set<string> {
  const rows = db
    .query<{ account_id: string }>(
      `SELECT account_id FROM follows WHERE target_account_id = @target_account_id
       AND account_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))`,
    )
    .all({ target_account_id: accountId, ids: JSON.stringify(ids) });
  return new Set(rows.map((r) => r.account_id));
}

/** Which of the given accounts have a pending request to follow `accountId`. */
export function requestersAmong(db: Db, accountId: string, ids: readonly string[]): Set<string> {
  const rows = db
    .query<{ account_id: string }>(
      `SELECT account_id FROM follow_requests WHERE target_account_id = @target_account_id
       AND account_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))`,
    )
    .all({ target_account_id: accountId, ids: JSON.stringify(ids) });
  return new Set(rows.map((r) => r.account_id));
}

/** One entry of a followers or following list: the follow's id (the page cursor) and the other account. */
export interface FollowListEntry {
  follow_id: string;
  account_id: string;
}

/**
 * A page of an account's followers (`direction` 'followers') or of the accounts it follows
 * ('following'), newest follow first, keyset-paged by the follow id. Suspended accounts are left
 * out, and so are those for which `hidden` (an SQL condition over an account id column that reads
 * `@viewer_id`, built by core) is true for `viewerId`; the page is filled past them.
 */
export function followListPage(
  db: Db,
  accountId: string,
  direction: 'followers' | 'following',
  page: PageBounds,
  hidden: ((col: string) => string) | null = null,
  viewerId: string | null = null,
): FollowListEntry[] {
  const p = pageSql('f.id', page);
  const [mine, other] = direction === 'followers' ? ['target_account_id', 'account_id'] : ['account_id', 'target_account_id'];
  const exclude = hidden ? `AND NOT ${hidden(`f.${other}`)}` : '';
  const rows = db
    .query<FollowListEntry>(
      `SELECT f.id AS follow_id, f.${other} AS account_id FROM follows f
       JOIN accounts a ON a.id = f.${other} AND a.suspended_at IS NULL
       WHERE f.${mine} = @account_id ${exclude} ${p.where} ${p.orderLimit}`,
    )
    .all({ account_id: accountId, viewer_id: viewerId, ...p.params });
  return p.reverse ? rows.reverse() : rows;
}

/**
 * Whether an account's local followers are best found from the local users (each user's follow of
 * it, by the unique (account_id, target_account_id) index) rather than from its followers (the
 * follows_target index): when it has more followers than the instance has users, as a personal
 * instance's account with thousands of remote followers. A family instance's account followed by
 * its own users is the other way round. CROSS JOIN holds SQLite to the order chosen.
 */
export function fromLocalUsers(db: Db, accountId: string): boolean {
  const row = db
    .query<{ few: number }>('SELECT (SELECT count(*) FROM users) < (SELECT followers_count FROM accounts WHERE id = @account_id) AS few')
    .get({ account_id: accountId });
  return row?.few === 1;
}

/**
 * Local followers of `accountId` who asked to be notified of its posts (for every status created,
 * local or remote). Read from the partial index `follows_notify`, which holds only such follows: the
 * unary `+` keeps SQLite from driving the query from the users instead (one probe per local user),
 * and the follower's being local is checked on the few rows found, by the users' unique index.
 */
export function localNotifyingFollowers(db: Db, accountId: string): FollowRow[] {
  return db
    .query<FollowRow>(
      `SELECT f.* FROM follows f
       WHERE f.target_account_id = @account_id AND f.notify = 1 AND +f.account_id IN (SELECT account_id FROM users)`,
    )
    .all({ account_id: accountId });
}

/** A page of the accounts asking to follow `accountId`, oldest request last (newest first), as (request id, account id). */
export function followRequestPage(db: Db, accountId: string, page: PageBounds): { request_id: string; account_id: string }[] {
  const p = pageSql('r.id', page);
  const rows = db
    .query<{ request_id: string; account_id: string }>(
      `SELECT r.id AS request_id, r.account_id FROM follow_requests r
       JOIN accounts a ON a.id = r.account_id AND a.suspended_at IS NULL
       WHERE r.target_account_id = @account_id ${p.where} ${p.orderLimit}`,
    )
    .all({ account_id: accountId, ...p.params });
  return p.reverse ? rows.reverse() : rows;
}

/** Every pending request to follow `accountId`, oldest first, with whether the requester is silenced. */
export function pendingRequestsTo(db: Db, accountId: string): (FollowRequestRow & { silenced: number })[] {
  return db
    .query<FollowRequestRow & { silenced: number }>(
      `SELECT r.*, (a.silenced_at IS NOT NULL) AS silenced FROM follow_requests r JOIN accounts a ON a.id = r.account_id
       WHERE r.target_account_id = @account_id ORDER BY r.id`,
    )
    .all({ account_id: accountId });
}

/**
 * For each of `targetIds`, its followers that `viewerId` follows (Mastodon's familiar followers):
 * followers that hide their own network or are suspended are left out. Newest follow first.
 */
export function familiarFollowerRows(db: Db, viewerId: string, targetIds: readonly string[]): { target_account_id: string; account_id: string }[] {
  return db
    .query<{ target_account_id: string; account_id: string }>(
      `SELECT f.target_account_id, f.account_id FROM follows f
       JOIN follows mine ON mine.account_id = @viewer_id AND mine.target_account_id = f.account_id
       JOIN accounts a ON a.id = f.account_id AND a.suspended_at IS NULL AND a.hide_collections = 0
       WHERE f.target_account_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))
       ORDER BY f.id DESC`,
    )
    .all({ viewer_id: viewerId, ids: JSON.stringify(targetIds) });
}
