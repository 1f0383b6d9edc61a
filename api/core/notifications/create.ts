import { findMutedConversations, findStatusById } from '../../db/repos/statuses.js';
import {
  deleteStatusNotifications,
  insertNotification,
  latestGroupKey,
  localAccountIdsAmong,
  notificationExists,
  type NotificationRow,
} from '../../db/repos/notifications.js';
import { now } from '../../util/clock.js';
import { minIdAtTime, newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { notificationsSuppressed } from '../relationships/exclusions.js';
import { policyVerdict } from './policy.js';
import { noteFilteredNotification, REQUEST_TYPES } from './requests.js';
import { GROUPABLE_TYPES, type NotificationType } from './types.js';

/** What a new notification is: who gets it, who caused it, and about which status. */
export interface NewNotification {
  recipientId: string;
  fromAccountId: string;
  type: NotificationType;
  statusId?: string | null | undefined;
  /** The report an `admin.report` notification is about. */
  reportId?: string | null | undefined;
  /** The collection an `added_to_collection` notification is about. */
  collectionId?: string | null | undefined;
  /** The warning (strike) a `moderation_warning` notification is about. */
  accountWarningId?: string | null | undefined;
}

/** A group spans at most this many hours (Mastodon's MAXIMUM_GROUP_SPAN_HOURS). */
export const MAX_GROUP_SPAN_HOURS = 12;
const HOUR_MS = 3_600_000;

// Types of which every occurrence is its own notification (no status tells them apart).
const EACH_ITS_OWN: ReadonlySet<string> = new Set(['admin.report', 'added_to_collection', 'moderation_warning']);

// Types a user may get about their own action: the end of their own poll, and moderation notices.
const SELF_ALLOWED: ReadonlySet<string> = new Set(['poll', 'severed_relationships', 'moderation_warning']);

/**
 * The v2 group key, as Mastodon computes it. Favourites and reblogs group by status, follows and
 * sign-ups by type, within an hour bucket; a new notification joins the bucket of the previous
 * one of its kind while that bucket is younger than 12 hours and the previous notification is
 * itself less than 12 hours old (Mastodon keeps that bucket in Redis for 12 hours). Other types
 * are `ungrouped-<id>`.
 */
export function computeGroupKey(deps: Deps, recipientId: string, type: NotificationType, statusId: string | null, id: string, at: number): string {
  if (!GROUPABLE_TYPES.includes(type)) return `ungrouped-${id}`;
  const prefix = type === 'favourite' || type === 'reblog' ? `${type}-${statusId ?? ''}` : type;
  let bucket = Math.floor(at / HOUR_MS);
  const previous = latestGroupKey(deps.db, recipientId, type, statusId, minIdAtTime(at - MAX_GROUP_SPAN_HOURS * HOUR_MS));
  if (previous?.startsWith(`${prefix}-`)) {
    const previousBucket = Number(previous.slice(prefix.length + 1));
    if (Number.isSafeInteger(previousBucket) && bucket < previousBucket + MAX_GROUP_SPAN_HOURS) bucket = previousBucket;
  }
  return `${prefix}-${bucket}`;
}

/**
 * Creates a notification unless Mastodon would not: the recipient is not local, it is about the
 * recipient's own action (except the few types allowed), the sender is blocked either way, on a
 * domain the recipient blocks or muted with notifications hidden, the recipient muted the status's
 * conversation, the recipient's notification policy drops it (policy.ts), or the same notification
 * already exists. An `update` replaces the recipient's earlier update notification about the same
 * status. A notification the policy filters is stored as filtered (a mention or quote opens or
 * updates the sender's request) and announced to no one; any other emits `notification.created`.
 * Returns the row, or null when nothing was created.
 */
export function createNotification(deps: Deps, input: NewNotification): NotificationRow | null {
  const statusId = input.statusId ?? null;
  if (input.recipientId === input.fromAccountId && !SELF_ALLOWED.has(input.type)) return null;
  if (!localAccountIdsAmong(deps.db, [input.recipientId]).has(input.recipientId)) return null;
  // Blocks either way, a blocked domain, or a mute that hides notifications (exclusions.ts).
  if (notificationsSuppressed(deps, input.recipientId, input.fromAccountId)) return null;
  const status = statusId === null ? null : findStatusById(deps.db, statusId);
  if (status === undefined) return null;
  // A muted thread sends no notifications about its statuses.
  if (status && status.conversation_id !== null && findMutedConversations(deps.db, input.recipientId, [status.conversation_id]).size > 0) return null;
  const verdict = policyVerdict(deps, { recipientId: input.recipientId, fromAccountId: input.fromAccountId, type: input.type, status });
  if (verdict === 'drop') return null;
  const filtered = verdict === 'filter';
  const at = now();
  const row = deps.db.transaction((): NotificationRow | null => {
    if (input.type === 'update') {
      deleteStatusNotifications(deps.db, input.recipientId, 'update', statusId ?? '0');
    } else if (!EACH_ITS_OWN.has(input.type) && notificationExists(deps.db, input.recipientId, input.fromAccountId, input.type, statusId)) {
      // (Each report is its own notification, even from the same reporter; so is each addition
      // to a collection, even by the same curator.)
      return null;
    }
    if (filtered && REQUEST_TYPES.includes(input.type)) noteFilteredNotification(deps, input.recipientId, input.fromAccountId, at);
    const id = newId(at);
    const created: NotificationRow = {
      id,
      account_id: input.recipientId,
      from_account_id: input.fromAccountId,
      type: input.type,
      status_id: statusId,
      report_id: input.reportId ?? null,
      group_key: computeGroupKey(deps, input.recipientId, input.type, statusId, id, at),
      created_at: at,
      filtered: filtered ? 1 : 0,
      collection_id: input.collectionId ?? null,
      account_warning_id: input.accountWarningId ?? null,
    };
    insertNotification(deps.db, created);
    return created;
  });
  if (row && !filtered) deps.events.emit('notification.created', { notificationId: row.id, accountId: row.account_id, type: row.type });
  return row;
}
