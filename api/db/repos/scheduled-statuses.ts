import type { Db } from '../connection.js';
import type { PageBounds } from '../paging.js';
import { pageSql } from '../paging.js';

/** A row of `scheduled_statuses`; `params` is the JSON of the status parameters to publish. */
export interface ScheduledStatusRow {
  id: string;
  account_id: string;
  application_id: string | null;
  scheduled_at: number;
  params: string;
  created_at: number;
}

/** Inserts a scheduled status. */
export function insertScheduledStatus(db: Db, row: ScheduledStatusRow): void {
  db.query(
    `INSERT INTO scheduled_statuses (id, account_id, application_id, scheduled_at, params, created_at)
     VALUES (@id, @account_id, @application_id, @scheduled_at, @params, @created_at)`,
  ).run({ ...row });
}

/** Loads one of an account's scheduled statuses. */
export function findScheduledStatus(db: Db, id: string, accountId: string): ScheduledStatusRow | undefined {
  return db
    .query<ScheduledStatusRow>('SELECT * FROM scheduled_statuses WHERE id = @id AND account_id = @account_id')
    .get({ id, account_id: accountId });
}

/** One page of an account's scheduled statuses, newest id first (Mastodon pages them by id). */
export function scheduledStatusesPage(db: Db, accountId: string, page: PageBounds): ScheduledStatusRow[] {
  const p = pageSql('id', page);
  const rows = db
    .query<ScheduledStatusRow>(`SELECT * FROM scheduled_statuses WHERE account_id = @account_id ${p.where} ${p.orderLimit}`)
    .all({ account_id: accountId, ...p.params });
  return p.reverse ? rows.reverse() : rows;
}

/** How many statuses an account has scheduled, not counting `exceptId`. */
export function countScheduledStatuses(db: Db, accountId: string, exceptId: string | null): number {
  return (
    db
      .query<{ n: number }>('SELECT COUNT(*) AS n FROM scheduled_statuses WHERE account_id = @account_id AND id IS NOT @except_id')
      .get({ account_id: accountId, except_id: exceptId })?.n ?? 0
  );
}

/** How many statuses an account has scheduled in [from, to), not counting `exceptId`. */
export function countScheduledStatusesBetween(db: Db, accountId: string, from: number, to: number, exceptId: string | null): number {
  return (
    db
      .query<{ n: number }>(
        `SELECT COUNT(*) AS n FROM scheduled_statuses
         WHERE account_id = @account_id AND scheduled_at >= @from AND scheduled_at < @to AND id IS NOT @except_id`,
      )
      .get({ account_id: accountId, from, to, except_id: exceptId })?.n ?? 0
  );
}

/** Moves a scheduled status to another time. */
export function updateScheduledAt(db: Db, id: string, scheduledAt: number): void {
  db.query('UPDATE scheduled_statuses SET scheduled_at = @scheduled_at WHERE id = @id').run({ id, scheduled_at: scheduledAt });
}

/** Deletes one of an account's scheduled statuses; true when it existed. */
export function deleteScheduledStatus(db: Db, id: string, accountId: string): boolean {
  return db.query('DELETE FROM scheduled_statuses WHERE id = @id AND account_id = @account_id').run({ id, account_id: accountId }).changes > 0;
}

/** The ids of scheduled statuses due by `at`, oldest first. */
export function findDueScheduledStatusIds(db: Db, at: number, limit: number): string[] {
  return db
    .query<{ id: string }>('SELECT id FROM scheduled_statuses WHERE scheduled_at <= @at ORDER BY scheduled_at, id LIMIT @limit')
    .all({ at, limit })
    .map((r) => r.id);
}

/**
 * Removes a scheduled status and returns it, in one statement: the publisher claims a row this
 * way, so that a row is published by at most one run.
 */
export function claimScheduledStatus(db: Db, id: string): ScheduledStatusRow | undefined {
  return db.query<ScheduledStatusRow>('DELETE FROM scheduled_statuses WHERE id = @id RETURNING *').get({ id });
}
