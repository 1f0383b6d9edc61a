import type { Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';

/** A row of `account_conversations`: one direct-message thread as one participant sees it. */
export interface AccountConversationRow {
  id: string;
  account_id: string;
  conversation_id: string;
  /** JSON array of the other participants' account ids. */
  participant_ids: string;
  last_status_id: string | null;
  unread: number;
  updated_at: number;
}

/** One participant's row for a thread, if any. */
export function findAccountConversation(db: Db, accountId: string, conversationId: string): AccountConversationRow | undefined {
  return db
    .query<AccountConversationRow>('SELECT * FROM account_conversations WHERE account_id = @account_id AND conversation_id = @conversation_id')
    .get({ account_id: accountId, conversation_id: conversationId });
}

/** A row by its id, only when it belongs to `accountId`. */
export function findOwnAccountConversation(db: Db, accountId: string, id: string): AccountConversationRow | undefined {
  return db.query<AccountConversationRow>('SELECT * FROM account_conversations WHERE id = @id AND account_id = @account_id').get({ id, account_id: accountId });
}

/** Inserts a participant's row. */
export function insertAccountConversation(db: Db, row: AccountConversationRow): void {
  db.query(
    `INSERT INTO account_conversations (id, account_id, conversation_id, participant_ids, last_status_id, unread, updated_at)
     VALUES (@id, @account_id, @conversation_id, @participant_ids, @last_status_id, @unread, @updated_at)`,
  ).run({ ...row });
}

/** Moves a participant's row to a newer last status. */
export function updateAccountConversation(
  db: Db,
  id: string,
  changes: { participant_ids: string; last_status_id: string | null; unread: number; updated_at: number },
): void {
  db.query(
    `UPDATE account_conversations SET participant_ids = @participant_ids, last_status_id = @last_status_id,
     unread = @unread, updated_at = @updated_at WHERE id = @id`,
  ).run({ id, ...changes });
}

/** Marks a row read. */
export function markAccountConversationRead(db: Db, id: string): void {
  db.query('UPDATE account_conversations SET unread = 0 WHERE id = @id').run({ id });
}

/** Marks a row unread. */
export function markAccountConversationUnread(db: Db, id: string): void {
  db.query('UPDATE account_conversations SET unread = 1 WHERE id = @id').run({ id });
}

/** Deletes a row. */
export function deleteAccountConversation(db: Db, id: string): void {
  db.query('DELETE FROM account_conversations WHERE id = @id').run({ id });
}

/** A page of a user's conversations, newest last status first, paged by last_status_id as Mastodon does. */
export function accountConversationsPage(db: Db, accountId: string, page: PageBounds): AccountConversationRow[] {
  const p = pageSql('last_status_id', page);
  const rows = db
    .query<AccountConversationRow>(
      `SELECT * FROM account_conversations WHERE account_id = @account_id AND last_status_id IS NOT NULL ${p.where} ${p.orderLimit}`,
    )
    .all({ account_id: accountId, ...p.params });
  return p.reverse ? rows.reverse() : rows;
}

/** Rows of these accounts whose last status was deleted (last_status_id set to NULL by the schema). */
export function findOrphanedAccountConversations(db: Db, accountIds: readonly string[]): AccountConversationRow[] {
  if (accountIds.length === 0) return [];
  return db
    .query<AccountConversationRow>(
      `SELECT * FROM account_conversations WHERE last_status_id IS NULL
       AND account_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))`,
    )
    .all({ ids: JSON.stringify(accountIds) });
}

/** The newest direct status of a thread that an account wrote or was mentioned in. */
export function latestDirectStatusFor(db: Db, conversationId: string, accountId: string): string | null {
  const row = db
    .query<{ id: string }>(
      `SELECT s.id FROM statuses s WHERE s.conversation_id = @conversation_id AND s.visibility = 'direct'
       AND (s.account_id = @account_id OR EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id AND m.account_id = @account_id))
       ORDER BY s.id DESC LIMIT 1`,
    )
    .get({ conversation_id: conversationId, account_id: accountId });
  return row?.id ?? null;
}

/** Local accounts (with a user) among the given ones. */
export function localUserAccounts(db: Db, accountIds: readonly string[]): Set<string> {
  if (accountIds.length === 0) return new Set();
  return new Set(
    db
      .query<{ account_id: string }>('SELECT account_id FROM users WHERE account_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))')
      .all({ ids: JSON.stringify(accountIds) })
      .map((r) => r.account_id),
  );
}

/** Account ids mentioned by a status (silent mentions included). */
export function mentionedAccountIds(db: Db, statusId: string): string[] {
  return db.query<{ account_id: string }>('SELECT account_id FROM mentions WHERE status_id = @status_id').all({ status_id: statusId }).map((r) => r.account_id);
}
