import type { PageBounds } from '../../db/paging.js';
import {
  clearNotifications,
  countNotificationsAfter,
  deleteNotification,
  findNotification,
  listNotifications,
  type NotificationFilter,
  type NotificationRow,
} from '../../db/repos/notifications.js';
import { notFound } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { notificationsReadUpTo } from '../markers.js';
import { notificationsHiddenSql } from '../relationships/exclusions.js';
import { statusVisibilitySql } from '../statuses/visibility.js';
import { resolveTypes } from './types.js';

/** The filters of the notification listings (`types[]`, `exclude_types[]`, `account_id`, `include_filtered`). */
export interface NotificationQuery {
  types?: readonly string[] | undefined;
  excludeTypes?: readonly string[] | undefined;
  accountId?: string | undefined;
  /** Also the notifications the viewer's policy filtered. */
  includeFiltered?: boolean | undefined;
}

/**
 * The repository filter for a query. Notifications about a status the recipient may no longer see
 * (e.g. a private post after unfollowing) are left out by the one visibility rule set, and those
 * from accounts the recipient's blocks, domain blocks and notification mutes hide by the rules of
 * relationships/exclusions.ts. Notifications the viewer's policy filtered are left out unless
 * asked for, or unless the listing is of one sender's notifications (as Mastodon lists them for a
 * notification request).
 */
export function toFilter(query: NotificationQuery): NotificationFilter {
  return {
    types: resolveTypes(query.types, query.excludeTypes),
    fromAccountId: query.accountId,
    includeFiltered: query.includeFiltered === true || query.accountId !== undefined,
    statusVisibleSql: statusVisibilitySql('s'),
    fromAccountHiddenSql: notificationsHiddenSql('notifications.from_account_id'),
  };
}

/**
 * One page of the viewer's notifications, newest first. With min_id the page is the one just after
 * it (walked oldest first, then reversed), as Mastodon pages.
 */
export function listNotificationPage(deps: Deps, viewerId: string, query: NotificationQuery, page: PageBounds): NotificationRow[] {
  const filter = toFilter(query);
  if (filter.types?.length === 0) return [];
  const ascending = Boolean(page.minId);
  const rows = listNotifications(
    deps.db,
    viewerId,
    filter,
    { maxId: page.maxId, sinceId: ascending ? undefined : page.sinceId, minId: page.minId },
    page.limit,
    ascending,
  );
  return ascending ? rows.reverse() : rows;
}

/** One of the viewer's notifications; 404 when it is not theirs or does not exist. */
export function getNotification(deps: Deps, viewerId: string, id: string): NotificationRow {
  const row = findNotification(deps.db, viewerId, id);
  if (!row) throw notFound();
  return row;
}

/** Dismisses one of the viewer's notifications; 404 when it is not theirs. */
export function dismissNotification(deps: Deps, viewerId: string, id: string): void {
  if (deleteNotification(deps.db, viewerId, id) === 0) throw notFound();
}

/** Deletes all of the viewer's notifications. */
export function clearAllNotifications(deps: Deps, viewerId: string): void {
  clearNotifications(deps.db, viewerId);
}

/** How many notifications are newer than the viewer's notifications marker (all without one), at most `limit`. */
export function unreadNotificationCount(deps: Deps, viewerId: string, query: NotificationQuery, limit: number): number {
  // Filtered notifications are never unread (Mastodon's count takes no include_filtered).
  const filter = toFilter({ ...query, includeFiltered: false });
  if (filter.types?.length === 0) return 0;
  return countNotificationsAfter(deps.db, viewerId, filter, notificationsReadUpTo(deps, viewerId), limit);
}
