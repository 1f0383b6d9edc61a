import type { Db } from '../connection.js';
import type { PageBounds } from '../paging.js';
import { pageSql } from '../paging.js';

/**
 * Named queries for what one account does to a status: favourites, bookmarks, pins, muted
 * conversations, and the counters these keep on `statuses`. Reblogs are statuses themselves
 * (see `reblogs` below).
 */

// ---------------------------------------------------------------- favourites

/** Inserts a favourite unless one exists; returns true when a row was added. */
export function insertFavourite(db: Db, row: { id: string; account_id: string; status_id: string; created_at: number }): boolean {
  return (
    db
      .query('INSERT OR IGNORE INTO favourites (id, account_id, status_id, created_at) VALUES (@id, @account_id, @status_id, @created_at)')
      .run(row).changes > 0
  );
}

/** Deletes an account's favourite of a status; returns the deleted favourite's id, if there was one. */
export function deleteFavourite(db: Db, accountId: string, statusId: string): string | undefined {
  return db
    .query<{ id: string }>('DELETE FROM favourites WHERE account_id = @account_id AND status_id = @status_id RETURNING id')
    .get({ account_id: accountId, status_id: statusId })?.id;
}

/** One page of the accounts that favourited a status, newest favourite first: `id` is the favourite's id. */
export function favouritesOfStatus(db: Db, statusId: string, page: PageBounds): { id: string; account_id: string }[] {
  const p = pageSql('id', page);
  const rows = db
    .query<{ id: string; account_id: string }>(`SELECT id, account_id FROM favourites WHERE status_id = @status_id ${p.where} ${p.orderLimit}`)
    .all({ status_id: statusId, ...p.params });
  return p.reverse ? rows.reverse() : rows;
}

// ---------------------------------------------------------------- reblogs

/** One page of the accounts that reblogged a status, newest reblog first: `id` is the reblog's status id. */
export function reblogsOfStatus(db: Db, statusId: string, page: PageBounds): { id: string; account_id: string }[] {
  const p = pageSql('id', page);
  const rows = db
    .query<{ id: string; account_id: string }>(
      `SELECT id, account_id FROM statuses WHERE reblog_of_id = @status_id ${p.where} ${p.orderLimit}`,
    )
    .all({ status_id: statusId, ...p.params });
  return p.reverse ? rows.reverse() : rows;
}

// ---------------------------------------------------------------- bookmarks

/** Inserts a bookmark unless one exists; returns true when a row was added. */
export function insertBookmark(db: Db, row: { id: string; account_id: string; status_id: string; created_at: number }): boolean {
  return (
    db
      .query('INSERT OR IGNORE INTO bookmarks (id, account_id, status_id, created_at) VALUES (@id, @account_id, @status_id, @created_at)')
      .run(row).changes > 0
  );
}

/** Deletes an account's bookmark of a status; true when there was one. */
export function deleteBookmark(db: Db, accountId: string, statusId: string): boolean {
  return db.query('DELETE FROM bookmarks WHERE account_id = @account_id AND status_id = @status_id').run({ account_id: accountId, status_id: statusId }).changes > 0;
}

// ---------------------------------------------------------------- pins

/** How many statuses an account has pinned. */
export function countPins(db: Db, accountId: string): number {
  return db.query<{ n: number }>('SELECT COUNT(*) AS n FROM status_pins WHERE account_id = @account_id').get({ account_id: accountId })?.n ?? 0;
}

/** True when the account has pinned the status. */
export function hasPin(db: Db, accountId: string, statusId: string): boolean {
  return db.query('SELECT 1 FROM status_pins WHERE account_id = @account_id AND status_id = @status_id').get({ account_id: accountId, status_id: statusId }) !== undefined;
}

/** Inserts a pin (the caller has checked that none exists). */
export function insertPin(db: Db, row: { id: string; account_id: string; status_id: string; created_at: number }): void {
  db.query('INSERT INTO status_pins (id, account_id, status_id, created_at) VALUES (@id, @account_id, @status_id, @created_at)').run(row);
}

/** Deletes a pin; true when there was one. */
export function deletePin(db: Db, accountId: string, statusId: string): boolean {
  return db.query('DELETE FROM status_pins WHERE account_id = @account_id AND status_id = @status_id').run({ account_id: accountId, status_id: statusId }).changes > 0;
}

// ---------------------------------------------------------------- muted conversations

/** Mutes a conversation for an account (idempotent). */
export function insertConversationMute(db: Db, accountId: string, conversationId: string): void {
  db.query('INSERT OR IGNORE INTO conversation_mutes (account_id, conversation_id) VALUES (@account_id, @conversation_id)').run({
    account_id: accountId,
    conversation_id: conversationId,
  });
}

/** Unmutes a conversation for an account (idempotent). */
export function deleteConversationMute(db: Db, accountId: string, conversationId: string): void {
  db.query('DELETE FROM conversation_mutes WHERE account_id = @account_id AND conversation_id = @conversation_id').run({
    account_id: accountId,
    conversation_id: conversationId,
  });
}
