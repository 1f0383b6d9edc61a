import type { Db } from '../connection.js';

/**
 * Batched queries of the streaming API: each answers for one event and all the subscribers it may
 * concern at once (a JSON array of account or list ids), never one query per subscriber.
 */

const IDS = (param: string) => `(SELECT CAST(value AS INTEGER) FROM json_each(@${param}))`;

/** Of `accountIds`, those whose materialised home feed holds the status (primary-key lookups). */
export function homeFeedHoldersAmong(db: Db, statusId: string, accountIds: readonly string[]): string[] {
  if (accountIds.length === 0) return [];
  return db
    .query<{ account_id: string }>(
      `SELECT CAST(v.value AS INTEGER) AS account_id FROM json_each(@ids) v
       WHERE EXISTS (SELECT 1 FROM home_feed h WHERE h.account_id = CAST(v.value AS INTEGER) AND h.status_id = @status_id)`,
    )
    .all({ ids: JSON.stringify(accountIds), status_id: statusId })
    .map((r) => r.account_id);
}

/** Of `accountIds`, those that follow `targetId`. */
export function followersOfAmong(db: Db, targetId: string, accountIds: readonly string[]): Set<string> {
  if (accountIds.length === 0) return new Set();
  const rows = db
    .query<{ account_id: string }>(`SELECT account_id FROM follows WHERE target_account_id = @target_id AND account_id IN ${IDS('ids')}`)
    .all({ target_id: targetId, ids: JSON.stringify(accountIds) });
  return new Set(rows.map((r) => r.account_id));
}

/** One viewer's flags on a status, as 0/1 (see `viewerFlagsAmong`). */
export interface ViewerFlagsRow {
  account_id: string;
  f: number;
  r: number;
  b: number;
  p: number;
  m: number;
}

/**
 * For each viewer: favourited, reblogged, bookmarked, pinned the status `statusId`, and muted the
 * conversation `conversationId` (null: none). The same facts `loadStatusViews` reads per viewer.
 */
export function viewerFlagsAmong(db: Db, statusId: string, conversationId: string | null, viewerIds: readonly string[]): ViewerFlagsRow[] {
  if (viewerIds.length === 0) return [];
  return db
    .query<ViewerFlagsRow>(
      `SELECT v.id AS account_id,
         EXISTS (SELECT 1 FROM favourites WHERE account_id = v.id AND status_id = @status_id) AS f,
         EXISTS (SELECT 1 FROM statuses WHERE account_id = v.id AND reblog_of_id = @status_id) AS r,
         EXISTS (SELECT 1 FROM bookmarks WHERE account_id = v.id AND status_id = @status_id) AS b,
         EXISTS (SELECT 1 FROM status_pins WHERE account_id = v.id AND status_id = @status_id) AS p,
         (@conversation_id IS NOT NULL AND EXISTS (SELECT 1 FROM conversation_mutes WHERE account_id = v.id AND conversation_id = @conversation_id)) AS m
       FROM (SELECT CAST(value AS INTEGER) AS id FROM json_each(@ids)) v`,
    )
    .all({ status_id: statusId, conversation_id: conversationId, ids: JSON.stringify(viewerIds) });
}

/**
 * Of `accountIds`, those with any block, mute or domain block, or blocked by someone: the only
 * viewers whose relationships can hide anything (the same shortcut core/relationships/exclusions.ts
 * takes), so that the exclusion rules run for them alone.
 */
export function accountsWithRelationships(db: Db, accountIds: readonly string[]): string[] {
  if (accountIds.length === 0) return [];
  return db
    .query<{ account_id: string }>(
      `SELECT v.id AS account_id FROM (SELECT CAST(value AS INTEGER) AS id FROM json_each(@ids)) v
       WHERE EXISTS (SELECT 1 FROM blocks WHERE account_id = v.id)
          OR EXISTS (SELECT 1 FROM blocks WHERE target_account_id = v.id)
          OR EXISTS (SELECT 1 FROM mutes WHERE account_id = v.id)
          OR EXISTS (SELECT 1 FROM account_domain_blocks WHERE account_id = v.id)`,
    )
    .all({ ids: JSON.stringify(accountIds) })
    .map((r) => r.account_id);
}

/** A list that contains an author, with the facts its replies policy and reblog rule need. */
export interface ListForStatusRow {
  id: string;
  /** The list owner. */
  account_id: string;
  replies_policy: 'followed' | 'list' | 'none';
  /** The owner's follow of the author hides the author's reblogs. */
  hides_reblogs: number;
  /** The owner follows the account replied to. */
  follows_reply_target: number;
  /** The account replied to is a member of the list. */
  lists_reply_target: number;
}

/** Of `listIds`, the lists that contain `authorId`, with the facts of `ListForStatusRow`. */
export function listsContainingAuthor(db: Db, listIds: readonly string[], authorId: string, replyToAccountId: string | null): ListForStatusRow[] {
  if (listIds.length === 0) return [];
  return db
    .query<ListForStatusRow>(
      `SELECT l.id, l.account_id, l.replies_policy,
         EXISTS (SELECT 1 FROM follows f WHERE f.account_id = l.account_id AND f.target_account_id = @author_id AND f.show_reblogs = 0) AS hides_reblogs,
         (@reply_account_id IS NOT NULL AND EXISTS (SELECT 1 FROM follows f WHERE f.account_id = l.account_id AND f.target_account_id = @reply_account_id)) AS follows_reply_target,
         (@reply_account_id IS NOT NULL AND EXISTS (SELECT 1 FROM list_accounts r WHERE r.list_id = l.id AND r.account_id = @reply_account_id)) AS lists_reply_target
       FROM lists l JOIN list_accounts la ON la.list_id = l.id AND la.account_id = @author_id
       WHERE l.id IN ${IDS('ids')}
         -- A member on a pending follow request streams nothing yet, as the list timeline shows nothing.
         AND (la.account_id = l.account_id OR EXISTS (SELECT 1 FROM follows f WHERE f.account_id = l.account_id AND f.target_account_id = la.account_id))`,
    )
    .all({ ids: JSON.stringify(listIds), author_id: authorId, reply_account_id: replyToAccountId });
}

/** True when `listId` exists and belongs to `accountId`. */
export function ownsList(db: Db, accountId: string, listId: string): boolean {
  return db.query('SELECT 1 FROM lists WHERE id = @id AND account_id = @account_id').get({ id: listId, account_id: accountId }) !== undefined;
}

/** The lists among `listIds` that contain `accountId` (who receives a deleted status's id). */
export function listsWithMember(db: Db, listIds: readonly string[], accountId: string): string[] {
  if (listIds.length === 0) return [];
  return db
    .query<{ list_id: string }>(`SELECT list_id FROM list_accounts WHERE account_id = @account_id AND list_id IN ${IDS('ids')}`)
    .all({ account_id: accountId, ids: JSON.stringify(listIds) })
    .map((r) => r.list_id);
}
