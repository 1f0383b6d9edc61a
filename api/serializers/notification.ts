import type { NotificationRow } from '../db/repos/notifications.js';
import { isoTime } from '../util/clock.js';
import type { Account } from './account.js';
import type { MastodonAccountWarning } from './account-warning.js';
import type { MastodonCollection } from './collection.js';
import type { MastodonReport } from './report.js';
import type { MastodonStatus } from './status.js';

/** A notification group as the v2 API describes it, before the accounts and statuses are loaded. */
export interface NotificationGroupView {
  groupKey: string;
  type: string;
  notificationsCount: number;
  mostRecentNotificationId: string;
  /** Only when listing pages: the page's range within this group. */
  page: { minId: string; maxId: string; latestAt: number } | null;
  sampleAccountIds: string[];
  statusId: string | null;
  /** The report an `admin.report` group is about; null for other types. */
  reportId: string | null;
  /** The warning a `moderation_warning` group is about; null for other types. */
  accountWarningId: string | null;
}

/** Mastodon's Notification entity. */
export interface MastodonNotification {
  id: string;
  type: string;
  /** The v2 group key; `ungrouped-<id>` for types that do not group. */
  group_key: string;
  created_at: string;
  account: Account;
  /** Present for the types about a status. */
  status?: MastodonStatus;
  /** Present for `admin.report`. */
  report?: MastodonReport;
  /** Present for `added_to_collection` and `collection_update` (4.6). */
  collection?: MastodonCollection;
  /** Present for `moderation_warning` (4.3). */
  moderation_warning?: MastodonAccountWarning;
}

/** Mastodon's NotificationGroup entity (v2). */
export interface MastodonNotificationGroup {
  group_key: string;
  notifications_count: number;
  type: string;
  most_recent_notification_id: string;
  page_min_id?: string;
  page_max_id?: string;
  latest_page_notification_at?: string;
  sample_account_ids: string[];
  status_id?: string;
  report?: MastodonReport;
  /** Present for `moderation_warning` (4.3). */
  moderation_warning?: MastodonAccountWarning;
}

/** PartialAccountWithAvatar: what a client needs to draw an avatar in a group. */
export interface PartialAccountWithAvatar {
  id: string;
  acct: string;
  url: string | null;
  avatar: string;
  avatar_static: string;
  avatar_description: string;
  locked: boolean;
  bot: boolean;
}

/** The envelope of GET /api/v2/notifications and of one group. */
export interface GroupedNotificationsResults {
  accounts: Account[];
  partial_accounts?: PartialAccountWithAvatar[];
  statuses: MastodonStatus[];
  notification_groups: MastodonNotificationGroup[];
}

/** Converts a notification row, with its loaded account, status, report and collection (null for types without one). */
export function toMastodonNotification(
  row: NotificationRow,
  account: Account,
  status: MastodonStatus | null,
  report: MastodonReport | null = null,
  collection: MastodonCollection | null = null,
): MastodonNotification {
  const out: MastodonNotification = {
    id: row.id,
    type: row.type,
    group_key: row.group_key,
    created_at: isoTime(row.created_at),
    account,
  };
  if (status) out.status = status;
  if (report) out.report = report;
  if (collection) out.collection = collection;
  return out;
}

/**
 * Converts a group view. The ids are strings as documented (Mastodon's own sequential ids are small
 * numbers; ours are 64-bit and would lose precision as JSON numbers). The page fields are only
 * present in listings.
 */
export function toMastodonNotificationGroup(group: NotificationGroupView, report: MastodonReport | null = null): MastodonNotificationGroup {
  const out: MastodonNotificationGroup = {
    group_key: group.groupKey,
    notifications_count: group.notificationsCount,
    type: group.type,
    most_recent_notification_id: group.mostRecentNotificationId,
    ...(group.page
      ? { page_min_id: group.page.minId, page_max_id: group.page.maxId, latest_page_notification_at: isoTime(group.page.latestAt) }
      : {}),
    sample_account_ids: group.sampleAccountIds,
  };
  if (group.statusId !== null) out.status_id = group.statusId;
  if (report) out.report = report;
  return out;
}

/** The partial form of an account used with `expand_accounts=partial_avatars`. */
export function toPartialAccount(account: Account): PartialAccountWithAvatar {
  return {
    id: account.id,
    acct: account.acct,
    url: account.url,
    avatar: account.avatar,
    avatar_static: account.avatar_static,
    avatar_description: account.avatar_description,
    locked: account.locked,
    bot: account.bot,
  };
}
