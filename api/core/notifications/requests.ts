import type { PageBounds } from '../../db/paging.js';
import { insertNotificationPermission } from '../../db/repos/notification-policies.js';
import {
  deleteNotificationRequest,
  findNotificationRequestFrom,
  findNotificationRequestsByIds,
  findNotificationRequestView,
  hasFilteredRequestNotifications,
  insertNotificationRequest,
  listNotificationRequests,
  touchNotificationRequest,
  type NotificationRequestRow,
  type NotificationRequestView,
} from '../../db/repos/notification-requests.js';
import { deleteFilteredNotificationsFrom, unfilterNotificationsFrom } from '../../db/repos/notifications.js';
import { toMastodonNotificationRequest, type MastodonNotificationRequest } from '../../serializers/notification-request.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import { isId, newId } from '../../util/ids.js';
import { presentAccounts } from '../accounts/views.js';
import type { Deps } from '../deps.js';
import { notificationsHiddenSql } from '../relationships/exclusions.js';
import { presentStatuses } from '../statuses/views.js';

export { REQUEST_TYPES } from '../../db/repos/notification-requests.js';

// Requests from accounts whose notifications the recipient's blocks and mutes hide are not shown.
const HIDDEN_SENDER = notificationsHiddenSql('r.from_account_id');

/**
 * Opens the sender's request for a filtered mention or quote about to be stored, or marks the open
 * one as updated. Runs inside the caller's transaction, before the notification is inserted.
 */
export function noteFilteredNotification(deps: Deps, recipientId: string, fromAccountId: string, at: number): void {
  const existing = findNotificationRequestFrom(deps.db, recipientId, fromAccountId);
  if (existing && hasFilteredRequestNotifications(deps.db, recipientId, fromAccountId)) {
    touchNotificationRequest(deps.db, existing.id, at);
    return;
  }
  // A request whose filtered notifications are all gone (their statuses deleted, or dismissed one
  // by one) had ended, as Mastodon destroys it then: this notification starts a new one.
  if (existing) deleteNotificationRequest(deps.db, existing.id);
  insertNotificationRequest(deps.db, { id: newId(at), account_id: recipientId, from_account_id: fromAccountId, created_at: at, updated_at: at });
}

/** One page of the requests waiting for the viewer, newest first. */
export function listRequestPage(deps: Deps, viewerId: string, page: PageBounds): NotificationRequestView[] {
  return listNotificationRequests(deps.db, viewerId, HIDDEN_SENDER, page);
}

/** One request of the viewer's by id; 404 when it is not theirs, not shown, or not an id. */
export function getNotificationRequest(deps: Deps, viewerId: string, id: string): NotificationRequestView {
  const view = isId(id) ? findNotificationRequestView(deps.db, viewerId, id, HIDDEN_SENDER) : undefined;
  if (!view) throw notFound();
  return view;
}

/** Accepts requests inside a transaction: the senders are let through from now on and their filtered notifications join the others. */
function accept(deps: Deps, rows: readonly NotificationRequestRow[]): void {
  const at = now();
  for (const row of rows) {
    insertNotificationPermission(deps.db, row.account_id, row.from_account_id, at);
    unfilterNotificationsFrom(deps.db, row.account_id, row.from_account_id);
    deleteNotificationRequest(deps.db, row.id);
  }
}

/** Dismisses requests inside a transaction: the requests and their filtered notifications go. */
function dismiss(deps: Deps, rows: readonly NotificationRequestRow[]): void {
  for (const row of rows) {
    deleteFilteredNotificationsFrom(deps.db, row.account_id, row.from_account_id);
    deleteNotificationRequest(deps.db, row.id);
  }
}

/**
 * Accepts one of the viewer's requests (404 when not found): every filtered notification from the
 * sender becomes an ordinary one, in its place by time, and the sender's future notifications are
 * accepted whatever the policy. The merge is done when this returns; `notifications.merged` tells
 * the viewer's streams to reload.
 */
export function acceptNotificationRequest(deps: Deps, viewerId: string, id: string): void {
  const view = getNotificationRequest(deps, viewerId, id);
  deps.db.transaction(() => accept(deps, [view]));
  deps.events.emit('notifications.merged', { accountId: viewerId });
}

/** Dismisses one of the viewer's requests (404 when not found), deleting its filtered notifications. */
export function dismissNotificationRequest(deps: Deps, viewerId: string, id: string): void {
  const view = getNotificationRequest(deps, viewerId, id);
  deps.db.transaction(() => dismiss(deps, [view]));
}

/** Accepts the viewer's requests among `ids`; ids that name none of them are ignored, as Mastodon does. */
export function acceptNotificationRequests(deps: Deps, viewerId: string, ids: readonly string[]): void {
  const rows = findNotificationRequestsByIds(deps.db, viewerId, ids.filter(isId));
  if (rows.length === 0) return;
  deps.db.transaction(() => accept(deps, rows));
  deps.events.emit('notifications.merged', { accountId: viewerId });
}

/** Dismisses the viewer's requests among `ids`; ids that name none of them are ignored, as Mastodon does. */
export function dismissNotificationRequests(deps: Deps, viewerId: string, ids: readonly string[]): void {
  const rows = findNotificationRequestsByIds(deps.db, viewerId, ids.filter(isId));
  if (rows.length === 0) return;
  deps.db.transaction(() => dismiss(deps, rows));
}

/**
 * Whether the accepted requests' notifications have been merged. Mastodon merges in a background
 * job and answers false until it has run; here the merge is part of the accept itself, so by the
 * time a client can ask, it is done.
 */
export function notificationRequestsMerged(): boolean {
  return true;
}

/** NotificationRequest entities for request views, accounts and statuses loaded in batches. */
export function presentNotificationRequests(deps: Deps, viewerId: string, views: readonly NotificationRequestView[]): MastodonNotificationRequest[] {
  const accounts = new Map(presentAccounts(deps, [...new Set(views.map((v) => v.from_account_id))]).map((a) => [a.id, a]));
  const statusIds = [...new Set(views.map((v) => v.last_status_id).filter((id): id is string => id !== null))];
  const statuses = new Map(presentStatuses(deps, statusIds, viewerId).map((s) => [s.id, s]));
  return views.flatMap((view) => {
    const account = accounts.get(view.from_account_id);
    if (!account) return [];
    return [toMastodonNotificationRequest(view, account, view.last_status_id === null ? null : (statuses.get(view.last_status_id) ?? null))];
  });
}
