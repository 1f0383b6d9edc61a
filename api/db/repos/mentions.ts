import type { Db } from '../connection.js';

/** A row of `mentions`: an account addressed by a status (silent: addressed but not in the text). */
export interface MentionRow {
  id: string;
  status_id: string;
  account_id: string;
  silent: number;
}

/** The mentions of a batch of statuses, in insertion order. */
export function findMentionsByStatusIds(db: Db, statusIds: readonly string[]): MentionRow[] {
  if (statusIds.length === 0) return [];
  return db
    .query<MentionRow>(
      'SELECT * FROM mentions WHERE status_id IN (SELECT CAST(value AS INTEGER) FROM json_each(?)) ORDER BY id',
    )
    .all(JSON.stringify([...new Set(statusIds)]));
}

/** Inserts a mention unless the account is already mentioned; a written mention un-silences a silent one. */
export function upsertMention(db: Db, row: MentionRow): void {
  db.query(
    `INSERT INTO mentions (id, status_id, account_id, silent) VALUES (@id, @status_id, @account_id, @silent)
     ON CONFLICT (status_id, account_id) DO UPDATE SET silent = min(silent, excluded.silent)`,
  ).run({ ...row });
}

/** Turns mentions of these accounts into silent ones (removed from the text by an edit). */
export function silenceMentions(db: Db, statusId: string, accountIds: readonly string[]): void {
  if (accountIds.length === 0) return;
  db.query(
    `UPDATE mentions SET silent = 1 WHERE status_id = @status_id
     AND account_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))`,
  ).run({ status_id: statusId, ids: JSON.stringify(accountIds) });
}

/** True when the account is mentioned (silently or not) by the status. */
export function isMentioned(db: Db, statusId: string, accountId: string): boolean {
  return db.query('SELECT 1 FROM mentions WHERE status_id = @status_id AND account_id = @account_id').get({ status_id: statusId, account_id: accountId }) !== undefined;
}
