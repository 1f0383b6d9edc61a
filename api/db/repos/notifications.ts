import type { Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';

/** A row of `notifications`. `status_id` is the status the notification is about (the original for a reblog). */
export interface NotificationRow {
  id: string;
  account_id: string;
  from_account_id: string;
  type: string;
  status_id: string | null;
  report_id: string | null;
  group_key: string;
  created_at: number;
  /** 1 while the recipient's notification policy holds it back (see notification-requests.ts). */
  filtered: number;
  /** The collection an `added_to_collection` notification is about (0097); absent or null otherwise. */
  collection_id?: string | null;
  /** The warning a `moderation_warning` notification is about (0096); absent or null otherwise. */
  account_warning_id?: string | null;
}

/** Which notifications of an account a listing or count covers. */
export interface NotificationFilter {
  /** Types to include; null for all. An empty list matches nothing. */
  types: readonly string[] | null;
  /** Only notifications from this account. */
  fromAccountId?: string | undefined;
  /**
   * An SQL condition over the status row `s` that is true when the recipient may see it (it reads
   * `@viewer_id`, bound to the recipient): notifications about statuses they may not see are left out.
   */
  statusVisibleSql?: string | undefined;
  /**
   * An SQL condition over `notifications.from_account_id` that is true when the recipient's blocks
   * or mutes hide the sender (it reads `@viewer_id`, bound to the recipient).
   */
  fromAccountHiddenSql?: string | undefined;
  /** Also notifications the recipient's policy filtered (left out by default). */
  includeFiltered?: boolean | undefined;
}

/** Id bounds of a page (exclusive); any may be absent. */
export interface IdBounds {
  maxId?: string | undefined;
  sinceId?: string | undefined;
  minId?: string | undefined;
}

function filterSql(filter: NotificationFilter): string {
  const visible = filter.statusVisibleSql
    ? `AND (notifications.status_id IS NULL OR EXISTS (SELECT 1 FROM statuses s WHERE s.id = notifications.status_id AND ${filter.statusVisibleSql}))`
    : '';
  const hidden = filter.fromAccountHiddenSql ? `AND NOT ${filter.fromAccountHiddenSql}` : '';
  return `notifications.account_id = @account_id
  AND (@types IS NULL OR notifications.type IN (SELECT value FROM json_each(@types)))
  AND (@from_account_id IS NULL OR notifications.from_account_id = @from_account_id)
  AND (@include_filtered = 1 OR notifications.filtered = 0) ${visible} ${hidden}`;
}

const BOUNDS_SQL = `AND (@max_id IS NULL OR id < @max_id)
  AND (@since_id IS NULL OR id > @since_id)
  AND (@min_id IS NULL OR id > @min_id)`;

function filterParams(accountId: string, filter: NotificationFilter): Record<string, string | number | null> {
  return {
    include_filtered: filter.includeFiltered ? 1 : 0,
    account_id: accountId,
    ...(filter.statusVisibleSql || filter.fromAccountHiddenSql ? { viewer_id: accountId } : {}),
    types: filter.types === null ? null : JSON.stringify(filter.types),
    from_account_id: filter.fromAccountId ?? null,
  };
}

function boundParams(bounds: IdBounds): Record<string, string | null> {
  return { max_id: bounds.maxId ?? null, since_id: bounds.sinceId ?? null, min_id: bounds.minId ?? null };
}

/** Inserts a notification row. */
export function insertNotification(db: Db, row: NotificationRow): void {
  db.query(
    `INSERT INTO notifications (id, account_id, from_account_id, type, status_id, report_id, group_key, created_at, filtered, collection_id, account_warning_id)
     VALUES (@id, @account_id, @from_account_id, @type, @status_id, @report_id, @group_key, @created_at, @filtered, @collection_id, @account_warning_id)`,
  ).run({ ...row, collection_id: row.collection_id ?? null, account_warning_id: row.account_warning_id ?? null });
}

/** One notification of an account. */
export function findNotification(db: Db, accountId: string, id: string): NotificationRow | undefined {
  return db.query<NotificationRow>('SELECT * FROM notifications WHERE id = @id AND account_id = @account_id').get({ id, account_id: accountId });
}

/** True when a notification of this type, from this account, about this status already exists. */
export function notificationExists(db: Db, accountId: string, fromAccountId: string, type: string, statusId: string | null): boolean {
  return (
    db
      .query(
        `SELECT 1 FROM notifications WHERE account_id = @account_id AND from_account_id = @from_account_id AND type = @type
         AND (status_id = @status_id OR (@status_id IS NULL AND status_id IS NULL)) LIMIT 1`,
      )
      .get({ account_id: accountId, from_account_id: fromAccountId, type, status_id: statusId }) !== undefined
  );
}

/** Deletes the notifications of this type, from this account, about this status (or about none). */
export function deleteNotificationsOf(db: Db, accountId: string, fromAccountId: string, type: string, statusId: string | null): number {
  return db
    .query(
      `DELETE FROM notifications WHERE account_id = @account_id AND from_account_id = @from_account_id AND type = @type
       AND (status_id = @status_id OR (@status_id IS NULL AND status_id IS NULL))`,
    )
    .run({ account_id: accountId, from_account_id: fromAccountId, type, status_id: statusId }).changes;
}

/** Deletes every notification of a type about a status for one recipient (an `update` is replaced this way). */
export function deleteStatusNotifications(db: Db, accountId: string, type: string, statusId: string): number {
  return db
    .query('DELETE FROM notifications WHERE account_id = @account_id AND type = @type AND status_id = @status_id')
    .run({ account_id: accountId, type, status_id: statusId }).changes;
}

/** Deletes one notification of an account; returns how many rows went (0 or 1). */
export function deleteNotification(db: Db, accountId: string, id: string): number {
  return db.query('DELETE FROM notifications WHERE id = @id AND account_id = @account_id').run({ id, account_id: accountId }).changes;
}

/** Deletes all notifications of an account. */
export function clearNotifications(db: Db, accountId: string): void {
  db.query('DELETE FROM notifications WHERE account_id = @account_id').run({ account_id: accountId });
}

/** Deletes an account's notifications with this group key. */
export function deleteNotificationGroup(db: Db, accountId: string, groupKey: string): void {
  db.query('DELETE FROM notifications WHERE account_id = @account_id AND group_key = @group_key').run({ account_id: accountId, group_key: groupKey });
}

/**
 * The group key of the recipient's latest notification of this type about this status (or about no
 * status) made since `sinceId`: where a new groupable notification may join.
 */
export function latestGroupKey(db: Db, accountId: string, type: string, statusId: string | null, sinceId: string): string | undefined {
  const row = db
    .query<{ group_key: string }>(
      `SELECT group_key FROM notifications WHERE account_id = @account_id AND id >= @since_id AND type = @type
       AND (status_id = @status_id OR (@status_id IS NULL AND status_id IS NULL))
       ORDER BY id DESC LIMIT 1`,
    )
    .get({ account_id: accountId, since_id: sinceId, type, status_id: statusId });
  return row?.group_key;
}

/**
 * Notifications of an account within id bounds, newest first, or oldest first when `ascending`
 * (min_id paging); at most `limit` rows.
 */
export function listNotifications(db: Db, accountId: string, filter: NotificationFilter, bounds: IdBounds, limit: number, ascending = false): NotificationRow[] {
  return db
    .query<NotificationRow>(
      `SELECT * FROM notifications WHERE ${filterSql(filter)} ${BOUNDS_SQL}
       ORDER BY id ${ascending ? 'ASC' : 'DESC'} LIMIT @limit`,
    )
    .all({ ...filterParams(accountId, filter), ...boundParams(bounds), limit });
}

/** How many notifications are newer than `afterId` (all when null), counting at most `limit`. */
export function countNotificationsAfter(db: Db, accountId: string, filter: NotificationFilter, afterId: string | null, limit: number): number {
  const row = db
    .query<{ n: number }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM notifications WHERE ${filterSql(filter)} AND (@after_id IS NULL OR id > @after_id) LIMIT @limit)`,
    )
    .get({ ...filterParams(accountId, filter), after_id: afterId, limit });
  return row?.n ?? 0;
}

/**
 * How many notification groups have a notification newer than `afterId`, counting at most `limit`.
 * Only types in `groupedTypes` group by their key; the others count one each.
 */
export function countGroupsAfter(
  db: Db,
  accountId: string,
  filter: NotificationFilter,
  groupedTypes: readonly string[],
  afterId: string | null,
  limit: number,
): number {
  const row = db
    .query<{ n: number }>(
      `SELECT count(*) AS n FROM (
         SELECT DISTINCT CASE WHEN type IN (SELECT value FROM json_each(@grouped)) THEN group_key ELSE 'ungrouped-' || id END
         FROM notifications WHERE ${filterSql(filter)} AND (@after_id IS NULL OR id > @after_id) LIMIT @limit)`,
    )
    .get({ ...filterParams(accountId, filter), grouped: JSON.stringify(groupedTypes), after_id: afterId, limit });
  return row?.n ?? 0;
}

/** Summary of one notification group as far as a page reaches (`upTo`: newest id considered, null for all). */
export interface GroupSummaryRow {
  group_key: string;
  most_recent_id: string | null;
  notifications_count: number;
  page_min_id: string | null;
  latest_at: number | null;
}

/**
 * For each group key: the newest notification id up to `upTo`, how many notifications up to
 * `upTo`, the oldest id from `from` on, and the newest one's time. One query for all keys.
 */
export function summarizeGroups(db: Db, accountId: string, keys: readonly string[], from: string | null, upTo: string | null): Map<string, GroupSummaryRow> {
  if (keys.length === 0) return new Map();
  const scope = 'n.account_id = @account_id AND n.group_key = g.value';
  const rows = db
    .query<GroupSummaryRow>(
      `SELECT g.value AS group_key,
         (SELECT n.id FROM notifications n WHERE ${scope} AND (@up_to_id IS NULL OR n.id <= @up_to_id) ORDER BY n.id DESC LIMIT 1) AS most_recent_id,
         (SELECT count(*) FROM notifications n WHERE ${scope} AND (@up_to_id IS NULL OR n.id <= @up_to_id)) AS notifications_count,
         (SELECT n.id FROM notifications n WHERE ${scope} AND (@from_id IS NULL OR n.id >= @from_id) ORDER BY n.id ASC LIMIT 1) AS page_min_id,
         (SELECT n.created_at FROM notifications n WHERE ${scope} AND (@up_to_id IS NULL OR n.id <= @up_to_id) ORDER BY n.id DESC LIMIT 1) AS latest_at
       FROM json_each(@keys) g`,
    )
    .all({ account_id: accountId, keys: JSON.stringify([...new Set(keys)]), up_to_id: upTo, from_id: from });
  return new Map(rows.map((r) => [r.group_key, r]));
}

/**
 * The accounts behind each group's most recent notifications (up to `upTo`), each account once,
 * most recent first, at most `perGroup` per group.
 */
export function groupSampleAccounts(db: Db, accountId: string, keys: readonly string[], upTo: string | null, perGroup: number): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (keys.length === 0) return out;
  const rows = db
    .query<{ group_key: string; from_account_id: string }>(
      `SELECT group_key, from_account_id FROM (
         SELECT group_key, from_account_id, row_number() OVER (PARTITION BY group_key ORDER BY max(id) DESC) AS rn
         FROM notifications
         WHERE account_id = @account_id AND group_key IN (SELECT value FROM json_each(@keys)) AND (@up_to_id IS NULL OR id <= @up_to_id)
         GROUP BY group_key, from_account_id)
       WHERE rn <= @per_group ORDER BY group_key, rn`,
    )
    .all({ account_id: accountId, keys: JSON.stringify([...new Set(keys)]), up_to_id: upTo, per_group: perGroup });
  for (const r of rows) {
    const list = out.get(r.group_key) ?? [];
    list.push(r.from_account_id);
    out.set(r.group_key, list);
  }
  return out;
}

/** Every notification of a group, newest first. */
export function notificationsOfGroup(db: Db, accountId: string, groupKey: string): NotificationRow[] {
  return db
    .query<NotificationRow>('SELECT * FROM notifications WHERE account_id = @account_id AND group_key = @group_key ORDER BY id DESC')
    .all({ account_id: accountId, group_key: groupKey });
}

/** One page of a group's notifications, newest first, keyset-paged by notification id. */
export function notificationsOfGroupPage(db: Db, accountId: string, groupKey: string, page: PageBounds): NotificationRow[] {
  const p = pageSql('id', page);
  const rows = db
    .query<NotificationRow>(`SELECT * FROM notifications WHERE account_id = @account_id AND group_key = @group_key ${p.where} ${p.orderLimit}`)
    .all({ account_id: accountId, group_key: groupKey, ...p.params });
  return p.reverse ? rows.reverse() : rows;
}

/** Makes the recipient's filtered notifications from a sender ordinary ones; returns how many. */
export function unfilterNotificationsFrom(db: Db, accountId: string, fromAccountId: string): number {
  return db
    .query('UPDATE notifications SET filtered = 0 WHERE account_id = @account_id AND from_account_id = @from_account_id AND filtered = 1')
    .run({ account_id: accountId, from_account_id: fromAccountId }).changes;
}

/** Deletes the recipient's filtered notifications from a sender; returns how many. */
export function deleteFilteredNotificationsFrom(db: Db, accountId: string, fromAccountId: string): number {
  return db
    .query('DELETE FROM notifications WHERE account_id = @account_id AND from_account_id = @from_account_id AND filtered = 1')
    .run({ account_id: accountId, from_account_id: fromAccountId }).changes;
}

/** Which of the given accounts are local (have a user). */
export function localAccountIdsAmong(db: Db, ids: readonly string[]): Set<string> {
  if (ids.length === 0) return new Set();
  const rows = db
    .query<{ account_id: string }>('SELECT account_id FROM users WHERE account_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))')
    .all({ ids: JSON.stringify([...new Set(ids)]) });
  return new Set(rows.map((r) => r.account_id));
}


/** Local accounts that reblogged a status. */
export function localReblogAccountIds(db: Db, statusId: string): string[] {
  return db
    .query<{ account_id: string }>(
      'SELECT DISTINCT s.account_id FROM statuses s JOIN users u ON u.account_id = s.account_id WHERE s.reblog_of_id = @status_id',
    )
    .all({ status_id: statusId })
    .map((r) => r.account_id);
}

/** Local accounts that voted in a poll. */
export function localPollVoterIds(db: Db, pollId: string): string[] {
  return db
    .query<{ account_id: string }>('SELECT DISTINCT v.account_id FROM poll_votes v JOIN users u ON u.account_id = v.account_id WHERE v.poll_id = @poll_id')
    .all({ poll_id: pollId })
    .map((r) => r.account_id);
}
