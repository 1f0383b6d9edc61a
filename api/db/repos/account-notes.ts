import type { Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';

/** Private notes on accounts (`account_notes`) and endorsements (`account_pins`): named queries. */

const IDS = 'IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))';

/** The account's notes on the given accounts, keyed by target id. */
export function notesOf(db: Db, accountId: string, ids: readonly string[]): Map<string, string> {
  const rows = db
    .query<{ target_account_id: string; comment: string }>(
      `SELECT target_account_id, comment FROM account_notes WHERE account_id = @account_id AND target_account_id ${IDS}`,
    )
    .all({ account_id: accountId, ids: JSON.stringify(ids) });
  return new Map(rows.map((r) => [r.target_account_id, r.comment]));
}

/** Sets the account's note on `targetAccountId` (insert or replace the text). */
export function upsertNote(db: Db, row: { id: string; account_id: string; target_account_id: string; comment: string; at: number }): void {
  db.query(
    `INSERT INTO account_notes (id, account_id, target_account_id, comment, created_at, updated_at)
     VALUES (@id, @account_id, @target_account_id, @comment, @at, @at)
     ON CONFLICT (account_id, target_account_id) DO UPDATE SET comment = excluded.comment, updated_at = excluded.updated_at`,
  ).run({ ...row });
}

/** Removes the account's note on `targetAccountId`. */
export function deleteNote(db: Db, accountId: string, targetAccountId: string): void {
  db.query('DELETE FROM account_notes WHERE account_id = @account_id AND target_account_id = @target_account_id').run({
    account_id: accountId,
    target_account_id: targetAccountId,
  });
}

/** Which of the given accounts the account endorses. */
export function endorsedAmong(db: Db, accountId: string, ids: readonly string[]): Set<string> {
  const rows = db
    .query<{ target_account_id: string }>(`SELECT target_account_id FROM account_pins WHERE account_id = @account_id AND target_account_id ${IDS}`)
    .all({ account_id: accountId, ids: JSON.stringify(ids) });
  return new Set(rows.map((r) => r.target_account_id));
}

/** Endorses `targetAccountId` (through the follow `followId`); an existing endorsement is kept. */
export function insertPin(db: Db, row: { id: string; account_id: string; target_account_id: string; follow_id: string; created_at: number }): void {
  db.query(
    `INSERT OR IGNORE INTO account_pins (id, account_id, target_account_id, follow_id, created_at)
     VALUES (@id, @account_id, @target_account_id, @follow_id, @created_at)`,
  ).run({ ...row });
}

/** Removes an endorsement. */
export function deletePin(db: Db, accountId: string, targetAccountId: string): void {
  db.query('DELETE FROM account_pins WHERE account_id = @account_id AND target_account_id = @target_account_id').run({
    account_id: accountId,
    target_account_id: targetAccountId,
  });
}

/** A page of the accounts an account endorses (suspended ones left out), newest first, as (pin id, account id). */
export function pinListPage(db: Db, accountId: string, page: PageBounds): { pin_id: string; account_id: string }[] {
  const p = pageSql('p.id', page);
  const rows = db
    .query<{ pin_id: string; account_id: string }>(
      `SELECT p.id AS pin_id, p.target_account_id AS account_id FROM account_pins p
       JOIN accounts a ON a.id = p.target_account_id AND a.suspended_at IS NULL
       WHERE p.account_id = @account_id ${p.where} ${p.orderLimit}`,
    )
    .all({ account_id: accountId, ...p.params });
  return p.reverse ? rows.reverse() : rows;
}
