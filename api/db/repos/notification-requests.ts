import type { Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';

/** A row of `notification_requests`: a sender whose filtered mentions wait for the recipient. */
export interface NotificationRequestRow {
  id: string;
  account_id: string;
  from_account_id: string;
  created_at: number;
  updated_at: number;
}

/** A request with what is read from its filtered notifications. */
export interface NotificationRequestView extends NotificationRequestRow {
  /** Filtered mentions and quotes from the sender, counted up to 100. */
  notifications_count: number;
  /** The status of the latest of them, if any is about a status still there. */
  last_status_id: string | null;
}

/** The notification types a request gathers (Mastodon's: mentions and quotes). */
export const REQUEST_TYPES: readonly string[] = ['mention', 'quote'];

/** Counts above this are not worth knowing exactly (Mastodon's MAX_MEANINGFUL_COUNT). */
export const MAX_MEANINGFUL_COUNT = 100;

// The recipient's filtered notifications of the request types from the request's sender.
const FILTERED_OF_REQUEST = `n.account_id = r.account_id AND n.from_account_id = r.from_account_id AND n.filtered = 1
  AND n.type IN (SELECT value FROM json_each(@request_types))`;

const VIEW_COLUMNS = `r.*,
  (SELECT count(*) FROM (SELECT 1 FROM notifications n WHERE ${FILTERED_OF_REQUEST} LIMIT @max_count)) AS notifications_count,
  (SELECT n.status_id FROM notifications n WHERE ${FILTERED_OF_REQUEST} AND n.status_id IS NOT NULL ORDER BY n.id DESC LIMIT 1) AS last_status_id`;

/**
 * The requests a recipient is shown: those with filtered notifications left, from accounts that are
 * not suspended and whose notifications the recipient's blocks and mutes do not hide (`hiddenSql`,
 * a condition over `r.from_account_id` that reads `@viewer_id`).
 */
function shownSql(hiddenSql: string): string {
  return `EXISTS (SELECT 1 FROM notifications n WHERE ${FILTERED_OF_REQUEST})
    AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = r.from_account_id AND a.suspended_at IS NULL)
    AND NOT ${hiddenSql}`;
}

function viewParams(accountId: string): Record<string, string | number> {
  return { account_id: accountId, viewer_id: accountId, request_types: JSON.stringify(REQUEST_TYPES), max_count: MAX_MEANINGFUL_COUNT };
}

/** The request from a sender to a recipient, whether or not it is shown. */
export function findNotificationRequestFrom(db: Db, accountId: string, fromAccountId: string): NotificationRequestRow | undefined {
  return db
    .query<NotificationRequestRow>('SELECT * FROM notification_requests WHERE account_id = @account_id AND from_account_id = @from_account_id')
    .get({ account_id: accountId, from_account_id: fromAccountId });
}

/** Inserts a request row. */
export function insertNotificationRequest(db: Db, row: NotificationRequestRow): void {
  db.query(
    `INSERT INTO notification_requests (id, account_id, from_account_id, created_at, updated_at)
     VALUES (@id, @account_id, @from_account_id, @created_at, @updated_at)`,
  ).run({ ...row });
}

/** Marks a request as updated (a new filtered notification joined it). */
export function touchNotificationRequest(db: Db, id: string, at: number): void {
  db.query('UPDATE notification_requests SET updated_at = @at WHERE id = @id').run({ id, at });
}

/** Deletes a request row. */
export function deleteNotificationRequest(db: Db, id: string): void {
  db.query('DELETE FROM notification_requests WHERE id = @id').run({ id });
}

/** True when the recipient has filtered notifications of the request types from the sender. */
export function hasFilteredRequestNotifications(db: Db, accountId: string, fromAccountId: string): boolean {
  return (
    db
      .query(
        `SELECT 1 FROM notifications n WHERE n.account_id = @account_id AND n.from_account_id = @from_account_id AND n.filtered = 1
         AND n.type IN (SELECT value FROM json_each(@request_types)) LIMIT 1`,
      )
      .get({ account_id: accountId, from_account_id: fromAccountId, request_types: JSON.stringify(REQUEST_TYPES) }) !== undefined
  );
}

/** One page of the requests a recipient is shown, newest first, keyset-paged by request id. */
export function listNotificationRequests(db: Db, accountId: string, hiddenSql: string, page: PageBounds): NotificationRequestView[] {
  const p = pageSql('r.id', page);
  const rows = db
    .query<NotificationRequestView>(
      `SELECT ${VIEW_COLUMNS} FROM notification_requests r
       WHERE r.account_id = @account_id AND ${shownSql(hiddenSql)} ${p.where} ${p.orderLimit}`,
    )
    .all({ ...viewParams(accountId), ...p.params });
  return p.reverse ? rows.reverse() : rows;
}

/** One request a recipient is shown, by id. */
export function findNotificationRequestView(db: Db, accountId: string, id: string, hiddenSql: string): NotificationRequestView | undefined {
  return db
    .query<NotificationRequestView>(`SELECT ${VIEW_COLUMNS} FROM notification_requests r WHERE r.id = @id AND r.account_id = @account_id AND ${shownSql(hiddenSql)}`)
    .get({ ...viewParams(accountId), id });
}

/** The recipient's request rows among the given ids (unknown ids and other users' requests are ignored). */
export function findNotificationRequestsByIds(db: Db, accountId: string, ids: readonly string[]): NotificationRequestRow[] {
  if (ids.length === 0) return [];
  return db
    .query<NotificationRequestRow>(
      `SELECT * FROM notification_requests WHERE account_id = @account_id AND id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids)) ORDER BY id DESC`,
    )
    .all({ account_id: accountId, ids: JSON.stringify([...new Set(ids)]) });
}

/**
 * The policy summary: how many requests the recipient is shown (up to 100) and how many filtered
 * notifications those hold (each counted up to 100).
 */
export function pendingRequestsSummary(db: Db, accountId: string, hiddenSql: string): { requests: number; notifications: number } {
  const row = db
    .query<{ requests: number; notifications: number | null }>(
      `SELECT count(*) AS requests, sum(notifications_count) AS notifications FROM (
         SELECT ${VIEW_COLUMNS} FROM notification_requests r WHERE r.account_id = @account_id AND ${shownSql(hiddenSql)} LIMIT @max_count)`,
    )
    .get(viewParams(accountId));
  return { requests: row?.requests ?? 0, notifications: row?.notifications ?? 0 };
}
