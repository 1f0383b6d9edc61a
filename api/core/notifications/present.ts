import { findCollectionsByIds } from '../../db/repos/collections.js';
import { findAccountWarningsByIds } from '../../db/repos/admin-accounts.js';
import type { NotificationRow } from '../../db/repos/notifications.js';
import { findStatusById } from '../../db/repos/statuses.js';
import type { Account } from '../../serializers/account.js';
import {
  toMastodonNotification,
  toMastodonNotificationGroup,
  toPartialAccount,
  type GroupedNotificationsResults,
  type MastodonNotification,
} from '../../serializers/notification.js';
import type { MastodonCollection } from '../../serializers/collection.js';
import { toMastodonAccountWarning, type MastodonAccountWarning } from '../../serializers/account-warning.js';
import type { MastodonStatus } from '../../serializers/status.js';
import type { MastodonReport } from '../../serializers/report.js';
import { presentAccounts } from '../accounts/views.js';
import { presentCollections } from '../collections/present.js';
import type { Deps } from '../deps.js';
import { hiddenStatusIds } from '../filters/active.js';
import { presentReports } from '../reports/reports.js';
import { presentStatuses } from '../statuses/views.js';
import { canViewStatus } from '../statuses/visibility.js';
import type { NotificationGroupView } from './grouped.js';
import { STATUS_TYPES } from './types.js';

function accountMap(deps: Deps, ids: readonly string[]): Map<string, Account> {
  return new Map(presentAccounts(deps, [...new Set(ids)]).map((a) => [a.id, a]));
}

/**
 * The statuses notifications are about, by id. Those the viewer's `hide` filters (and irreversible
 * v1 filters) match in the notifications context are absent, so their notifications are dropped,
 * as Mastodon's server does.
 */
function statusMap(deps: Deps, ids: readonly (string | null)[], viewerId: string): Map<string, MastodonStatus> {
  const unique = [...new Set(ids.filter((id): id is string => id !== null))];
  const hidden = hiddenStatusIds(deps, viewerId, 'notifications', unique);
  return new Map(presentStatuses(deps, unique.filter((id) => !hidden.has(id)), viewerId).map((s) => [s.id, s]));
}

function reportMap(deps: Deps, items: readonly { type: string; reportId: string | null }[]): Map<string, MastodonReport> {
  const ids = items.filter((i) => i.type === 'admin.report' && i.reportId !== null).map((i) => i.reportId as string);
  return ids.length === 0 ? new Map() : presentReports(deps, [...new Set(ids)]);
}

/** The warnings `moderation_warning` notifications are about, as AccountWarning entities, by id. */
function warningMap(deps: Deps, items: readonly { type: string; warningId: string | null | undefined }[]): Map<string, MastodonAccountWarning> {
  const ids = items.filter((i) => i.type === 'moderation_warning' && i.warningId).map((i) => i.warningId as string);
  const rows = findAccountWarningsByIds(deps.db, ids);
  const targets = accountMap(deps, [...rows.values()].map((r) => r.target_account_id));
  const out = new Map<string, MastodonAccountWarning>();
  for (const row of rows.values()) {
    const target = targets.get(row.target_account_id);
    if (target) out.set(row.id, toMastodonAccountWarning(row, target));
  }
  return out;
}

// Types whose notification is about a collection (the entity carries `collection`).
const COLLECTION_TYPES: ReadonlySet<string> = new Set(['added_to_collection', 'collection_update']);

/** The collections notifications are about, as the viewer sees them, by id. */
function collectionMap(deps: Deps, rows: readonly NotificationRow[], viewerId: string): Map<string, MastodonCollection> {
  const ids = rows.filter((r) => COLLECTION_TYPES.has(r.type) && r.collection_id).map((r) => r.collection_id as string);
  if (ids.length === 0) return new Map();
  return new Map(presentCollections(deps, findCollectionsByIds(deps.db, ids), viewerId).map((c) => [c.id, c]));
}

/**
 * Notification entities for rows already selected for the viewer (listings select only statuses
 * the viewer may see), in the given order. Accounts, statuses and reports load in batches; a
 * notification whose account, status or report is gone is left out rather than shown broken.
 */
export function presentNotifications(deps: Deps, viewerId: string, rows: readonly NotificationRow[]): MastodonNotification[] {
  const accounts = accountMap(deps, rows.map((r) => r.from_account_id));
  const statuses = statusMap(deps, rows.filter((r) => STATUS_TYPES.has(r.type)).map((r) => r.status_id), viewerId);
  const reports = reportMap(deps, rows.map((r) => ({ type: r.type, reportId: r.report_id })));
  const collections = collectionMap(deps, rows, viewerId);
  const warnings = warningMap(deps, rows.map((r) => ({ type: r.type, warningId: r.account_warning_id })));
  const out: MastodonNotification[] = [];
  for (const row of rows) {
    const account = accounts.get(row.from_account_id);
    if (!account) continue;
    if (row.type === 'admin.report') {
      const report = row.report_id === null ? undefined : reports.get(row.report_id);
      if (report) out.push(toMastodonNotification(row, account, null, report));
    } else if (STATUS_TYPES.has(row.type)) {
      const status = row.status_id === null ? undefined : statuses.get(row.status_id);
      if (!status) continue;
      out.push(toMastodonNotification(row, account, status));
    } else if (COLLECTION_TYPES.has(row.type)) {
      const collection = row.collection_id ? collections.get(row.collection_id) : undefined;
      if (collection) out.push(toMastodonNotification(row, account, null, null, collection));
    } else if (row.type === 'moderation_warning') {
      const warning = row.account_warning_id ? warnings.get(row.account_warning_id) : undefined;
      if (warning) out.push({ ...toMastodonNotification(row, account, null), moderation_warning: warning });
    } else {
      out.push(toMastodonNotification(row, account, null));
    }
  }
  return out;
}

/** True when the viewer may see the status a single notification (or group) is about. */
export function notificationVisible(deps: Deps, viewerId: string, statusId: string | null): boolean {
  if (statusId === null) return true;
  const status = findStatusById(deps.db, statusId);
  return status !== undefined && canViewStatus(deps, status, viewerId);
}

/**
 * The GroupedNotificationsResults envelope: every account named by the groups (or, with
 * `partial_avatars`, only each group's latest account in full and the others as partial accounts),
 * the statuses the groups are about, and the groups. Groups whose status is gone are left out.
 */
export function presentNotificationGroups(
  deps: Deps,
  viewerId: string,
  groups: readonly NotificationGroupView[],
  expandAccounts: 'full' | 'partial_avatars',
): GroupedNotificationsResults {
  const statuses = statusMap(deps, groups.filter((g) => STATUS_TYPES.has(g.type)).map((g) => g.statusId), viewerId);
  const reports = reportMap(deps, groups);
  const warnings = warningMap(deps, groups.map((g) => ({ type: g.type, warningId: g.accountWarningId })));
  const kept = groups.filter(
    (g) =>
      (!STATUS_TYPES.has(g.type) || (g.statusId !== null && statuses.has(g.statusId))) &&
      (g.type !== 'admin.report' || (g.reportId !== null && reports.has(g.reportId))) &&
      (g.type !== 'moderation_warning' || (g.accountWarningId !== null && warnings.has(g.accountWarningId))),
  );
  const accounts = accountMap(deps, kept.flatMap((g) => g.sampleAccountIds));
  const fullIds = new Set<string>();
  const partialIds = new Set<string>();
  for (const group of kept) {
    group.sampleAccountIds.forEach((id, i) => {
      if (expandAccounts === 'full' || i === 0) fullIds.add(id);
      else partialIds.add(id);
    });
  }
  const statusOrder = [...new Set(kept.map((g) => g.statusId).filter((id): id is string => id !== null && statuses.has(id)))];
  const result: GroupedNotificationsResults = {
    accounts: [...fullIds].flatMap((id) => accounts.get(id) ?? []),
    statuses: statusOrder.flatMap((id) => statuses.get(id) ?? []),
    notification_groups: kept.map((g) => {
      const group = toMastodonNotificationGroup(g, g.reportId === null ? null : (reports.get(g.reportId) ?? null));
      const warning = g.accountWarningId === null ? undefined : warnings.get(g.accountWarningId);
      return warning ? { ...group, moderation_warning: warning } : group;
    }),
  };
  if (expandAccounts === 'partial_avatars') {
    result.partial_accounts = [...partialIds].filter((id) => !fullIds.has(id)).flatMap((id) => {
      const account = accounts.get(id);
      return account ? [toPartialAccount(account)] : [];
    });
  }
  return result;
}
