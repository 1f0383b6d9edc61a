import type { Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';

/** The replies shown in a list timeline: to followed accounts, to list members, or none. */
export type RepliesPolicy = 'followed' | 'list' | 'none';

/** A row of `lists` (see 0030_lists_filters.sql). */
export interface ListRow {
  id: string;
  account_id: string;
  title: string;
  replies_policy: RepliesPolicy;
  exclusive: number;
  created_at: number;
  updated_at: number;
}

/**
 * A row of `list_accounts`: `account_id` is a member of `list_id` through the owner's follow
 * `follow_id` (null when the owner lists themself, or while the owner's follow request is pending).
 */
export interface ListAccountRow {
  list_id: string;
  account_id: string;
  follow_id: string | null;
  created_at: number;
}

const IDS = 'IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))';

/** The lists an account owns, oldest first. */
export function listsOwnedBy(db: Db, accountId: string): ListRow[] {
  return db.query<ListRow>('SELECT * FROM lists WHERE account_id = @account_id ORDER BY id').all({ account_id: accountId });
}

/** How many lists an account owns. */
export function countListsOwnedBy(db: Db, accountId: string): number {
  return db.query<{ n: number }>('SELECT count(*) AS n FROM lists WHERE account_id = @account_id').get({ account_id: accountId })?.n ?? 0;
}

/** One list, only when `accountId` owns it. */
export function findOwnedList(db: Db, accountId: string, listId: string): ListRow | undefined {
  return db.query<ListRow>('SELECT * FROM lists WHERE id = @id AND account_id = @account_id').get({ id: listId, account_id: accountId });
}

/** Inserts a list. */
export function insertList(db: Db, row: ListRow): void {
  db.query(
    `INSERT INTO lists (id, account_id, title, replies_policy, exclusive, created_at, updated_at)
     VALUES (@id, @account_id, @title, @replies_policy, @exclusive, @created_at, @updated_at)`,
  ).run({ ...row });
}

/** Writes a list's title, replies policy and exclusive flag. */
export function updateList(db: Db, row: Pick<ListRow, 'id' | 'title' | 'replies_policy' | 'exclusive' | 'updated_at'>): void {
  db.query('UPDATE lists SET title = @title, replies_policy = @replies_policy, exclusive = @exclusive, updated_at = @updated_at WHERE id = @id').run({
    ...row,
  });
}

/** Deletes a list (its members go with it). */
export function deleteList(db: Db, listId: string): void {
  db.query('DELETE FROM lists WHERE id = @id').run({ id: listId });
}

/**
 * Member account ids of a list, suspended accounts left out, newest account first. With `page`,
 * one keyset page by account id; without, every member.
 */
export function listMemberIds(db: Db, listId: string, page: PageBounds | null): string[] {
  const base = `SELECT la.account_id FROM list_accounts la JOIN accounts a ON a.id = la.account_id AND a.suspended_at IS NULL
    WHERE la.list_id = @list_id`;
  if (page === null) {
    return db
      .query<{ account_id: string }>(`${base} ORDER BY la.account_id DESC`)
      .all({ list_id: listId })
      .map((r) => r.account_id);
  }
  const p = pageSql('la.account_id', page);
  const ids = db
    .query<{ account_id: string }>(`${base} ${p.where} ${p.orderLimit}`)
    .all({ list_id: listId, ...p.params })
    .map((r) => r.account_id);
  return p.reverse ? ids.reverse() : ids;
}

/** Which of `accountIds` are already members of the list. */
export function membersAmong(db: Db, listId: string, accountIds: readonly string[]): Set<string> {
  const rows = db
    .query<{ account_id: string }>(`SELECT account_id FROM list_accounts WHERE list_id = @list_id AND account_id ${IDS}`)
    .all({ list_id: listId, ids: JSON.stringify(accountIds) });
  return new Set(rows.map((r) => r.account_id));
}

/** Adds a member. */
export function insertListAccount(db: Db, row: ListAccountRow): void {
  db.query('INSERT INTO list_accounts (list_id, account_id, follow_id, created_at) VALUES (@list_id, @account_id, @follow_id, @created_at)').run({
    ...row,
  });
}

/** Removes the given accounts from a list (ids that are not members are ignored). */
export function deleteListAccounts(db: Db, listId: string, accountIds: readonly string[]): number {
  return db.query(`DELETE FROM list_accounts WHERE list_id = @list_id AND account_id ${IDS}`).run({ list_id: listId, ids: JSON.stringify(accountIds) })
    .changes;
}

/** The lists of `ownerId` that contain `accountId`, oldest first. */
export function ownedListsContaining(db: Db, ownerId: string, accountId: string): ListRow[] {
  return db
    .query<ListRow>(
      `SELECT l.* FROM lists l JOIN list_accounts la ON la.list_id = l.id AND la.account_id = @account_id
       WHERE l.account_id = @owner_id ORDER BY l.id`,
    )
    .all({ owner_id: ownerId, account_id: accountId });
}

/** Removes `accountId` from every list `ownerId` owns; returns how many memberships went. */
export function removeFromOwnedLists(db: Db, ownerId: string, accountId: string): number {
  return db
    .query('DELETE FROM list_accounts WHERE account_id = @account_id AND list_id IN (SELECT id FROM lists WHERE account_id = @owner_id)')
    .run({ owner_id: ownerId, account_id: accountId }).changes;
}

/**
 * Gives the memberships `ownerId`'s lists hold of `accountId` without a follow (added while a
 * follow request was pending) the follow that now exists; returns how many changed.
 */
export function attachFollowToMemberships(db: Db, ownerId: string, accountId: string, followId: string): number {
  return db
    .query(
      `UPDATE list_accounts SET follow_id = @follow_id WHERE account_id = @account_id AND follow_id IS NULL
       AND list_id IN (SELECT id FROM lists WHERE account_id = @owner_id)`,
    )
    .run({ owner_id: ownerId, account_id: accountId, follow_id: followId }).changes;
}

/** Account ids that are members of at least one exclusive list of `ownerId` (they leave the owner's home feed). */
export function exclusiveMemberIds(db: Db, ownerId: string): string[] {
  return db
    .query<{ account_id: string }>(
      `SELECT DISTINCT la.account_id FROM list_accounts la JOIN lists l ON l.id = la.list_id
       WHERE l.account_id = @owner_id AND l.exclusive = 1`,
    )
    .all({ owner_id: ownerId })
    .map((r) => r.account_id);
}

/** Owners of an exclusive list that holds the account (one query, for fan-out). */
export function exclusiveListOwnerIds(db: Db, memberId: string): string[] {
  return db
    .query<{ account_id: string }>(
      `SELECT DISTINCT l.account_id FROM list_accounts la JOIN lists l ON l.id = la.list_id
       WHERE la.account_id = @member_id AND l.exclusive = 1`,
    )
    .all({ member_id: memberId })
    .map((r) => r.account_id);
}

/** Builds the visibility condition for a status alias (core's `statusVisibilitySql`); binds `@viewer_id`. */
export type VisibleSql = (alias: string) => string;

/**
 * The list timeline: statuses and reblogs by the list's members that the owner may see, newest
 * first, never direct ones (Mastodon fans only non-direct posts out to lists). Reblogs by members
 * whose follow hides reblogs are left out, and a reblog needs its reblogged status visible too.
 * Replies to someone else (not the author, not the owner) appear as the list's replies policy says:
 * `followed` when the owner follows the replied-to account, `list` when it is a member, `none` never.
 *
 * One bounded query per member (each walks that member's (account_id, id) index and stops at the
 * page size), merged here: one query over all members would sort every status they ever posted.
 */
export function listTimelineIds(db: Db, visible: VisibleSql, list: Pick<ListRow, 'id' | 'account_id' | 'replies_policy'>, page: PageBounds): string[] {
  const p = pageSql('s.id', page);
  // A member whose follow request is still pending shows nothing yet (Mastodon distributes to a
  // list only through a follow); the owner listing themself needs none.
  const members = db
    .query<{ account_id: string }>(
      `SELECT la.account_id FROM list_accounts la WHERE la.list_id = @list_id
       AND (la.account_id = @owner_id OR EXISTS (SELECT 1 FROM follows f WHERE f.account_id = @owner_id AND f.target_account_id = la.account_id))`,
    )
    .all({ list_id: list.id, owner_id: list.account_id });
  const query = db.query<{ id: string }>(
    `SELECT s.id FROM statuses s
     WHERE s.account_id = @member_id AND s.visibility <> 'direct' AND ${visible('s')}
     AND (s.reblog_of_id IS NULL OR (
       EXISTS (SELECT 1 FROM statuses r WHERE r.id = s.reblog_of_id AND ${visible('r')})
       AND NOT EXISTS (SELECT 1 FROM follows hf WHERE hf.account_id = @viewer_id AND hf.target_account_id = s.account_id AND hf.show_reblogs = 0)))
     AND (
       (s.in_reply_to_id IS NULL AND s.in_reply_to_uri IS NULL)
       OR s.in_reply_to_account_id = s.account_id
       OR s.in_reply_to_account_id = @viewer_id
       OR (@policy = 'followed' AND EXISTS (SELECT 1 FROM follows rf WHERE rf.account_id = @viewer_id AND rf.target_account_id = s.in_reply_to_account_id))
       OR (@policy = 'list' AND EXISTS (SELECT 1 FROM list_accounts rl WHERE rl.list_id = @list_id AND rl.account_id = s.in_reply_to_account_id))
     )
     ${p.where} ${p.orderLimit}`,
  );
  const ids: bigint[] = [];
  for (const m of members) {
    for (const row of query.all({ member_id: m.account_id, list_id: list.id, viewer_id: list.account_id, policy: list.replies_policy, ...p.params })) {
      ids.push(BigInt(row.id));
    }
  }
  // Newest first, or oldest first when walking forward from min_id (then reversed, as pageSql says).
  ids.sort((a, b) => (a === b ? 0 : (a < b) === p.reverse ? -1 : 1));
  const out = ids.slice(0, page.limit).map(String);
  return p.reverse ? out.reverse() : out;
}
