import type { PageBounds } from '../../db/paging.js';
import {
  countGroupsAfter,
  deleteNotification,
  deleteNotificationGroup,
  findNotification,
  groupSampleAccounts,
  listNotifications,
  notificationsOfGroup,
  notificationsOfGroupPage,
  summarizeGroups,
  type IdBounds,
  type NotificationRow,
} from '../../db/repos/notifications.js';
import { isId } from '../../util/ids.js';
import { notFound } from '../../util/errors.js';
import type { NotificationGroupView } from '../../serializers/notification.js';
import type { Deps } from '../deps.js';
import { notificationsReadUpTo } from '../markers.js';
import { toFilter, type NotificationQuery } from './read.js';
import { GROUPABLE_TYPES, resolveGroupedTypes } from './types.js';

export type { NotificationGroupView } from '../../serializers/notification.js';

/** How many of the latest accounts a group names (Mastodon's SAMPLE_ACCOUNTS_SIZE). */
export const SAMPLE_ACCOUNTS_SIZE = 8;
const WALK_BATCH = 200;

/** A page of groups and the notification ids its groups' representatives span (for the Link header). */
export interface GroupPage {
  groups: NotificationGroupView[];
  /** Newest and oldest notification ids of the page; null when empty. */
  range: { newest: string; oldest: string } | null;
}

/** The grouped-notifications query: the v1 filters plus which types may group. */
export interface GroupedQuery extends NotificationQuery {
  groupedTypes?: readonly string[] | undefined;
}

function groupingKey(row: NotificationRow, groupedTypes: readonly string[]): string {
  return groupedTypes.includes(row.type) ? row.group_key : `ungrouped-${row.id}`;
}

function isGrouped(row: NotificationRow, groupedTypes: readonly string[]): boolean {
  return groupedTypes.includes(row.type) && !row.group_key.startsWith('ungrouped-');
}

/** Inclusive id bounds over which a page's groups are summarized; null ends are open. */
interface SummaryBounds {
  from: string | null;
  upTo: string | null;
}

/**
 * Builds the group views for the notifications that represent them. With `bounds` (listing a
 * page), counts, samples and the most recent id only look as far as the page's upper bound, and
 * each group gets its page range from the lower bound on; without (a single group) they cover the
 * whole group.
 */
function buildGroups(deps: Deps, viewerId: string, reps: readonly NotificationRow[], groupedTypes: readonly string[], bounds: SummaryBounds | null): NotificationGroupView[] {
  const keys = reps.filter((r) => isGrouped(r, groupedTypes)).map((r) => r.group_key);
  const summaries = summarizeGroups(deps.db, viewerId, keys, bounds?.from ?? null, bounds?.upTo ?? null);
  const samples = groupSampleAccounts(deps.db, viewerId, keys, bounds?.upTo ?? null, SAMPLE_ACCOUNTS_SIZE);
  return reps.map((rep): NotificationGroupView => {
    const summary = isGrouped(rep, groupedTypes) ? summaries.get(rep.group_key) : undefined;
    if (!summary || summary.most_recent_id === null) {
      return {
        groupKey: `ungrouped-${rep.id}`,
        type: rep.type,
        notificationsCount: 1,
        mostRecentNotificationId: rep.id,
        page: bounds ? { minId: rep.id, maxId: rep.id, latestAt: rep.created_at } : null,
        sampleAccountIds: [rep.from_account_id],
        statusId: rep.status_id,
        reportId: rep.report_id,
        accountWarningId: rep.account_warning_id ?? null,
      };
    }
    return {
      groupKey: rep.group_key,
      type: rep.type,
      notificationsCount: summary.notifications_count,
      mostRecentNotificationId: summary.most_recent_id,
      page: bounds ? { minId: summary.page_min_id ?? rep.id, maxId: summary.most_recent_id, latestAt: summary.latest_at ?? rep.created_at } : null,
      sampleAccountIds: samples.get(rep.group_key) ?? [rep.from_account_id],
      statusId: rep.status_id,
      reportId: rep.report_id,
      accountWarningId: rep.account_warning_id ?? null,
    };
  });
}

function nextId(id: string): string {
  return (BigInt(id) + 1n).toString();
}

function previousId(id: string): string {
  return (BigInt(id) - 1n).toString();
}

/**
 * One page of grouped notifications, as Mastodon pages them: notifications are walked newest first
 * (oldest first after min_id) and each group is represented by the first of its notifications met,
 * until `limit` groups are found. Paging is over notification ids.
 */
export function listNotificationGroups(deps: Deps, viewerId: string, query: GroupedQuery, page: PageBounds): GroupPage {
  const filter = toFilter(query);
  const groupedTypes = resolveGroupedTypes(query.groupedTypes);
  // A limit of 0 asks for an empty page (Mastodon's `limit(0)`); the walk below takes one group first.
  if (filter.types?.length === 0 || page.limit <= 0) return { groups: [], range: null };
  const ascending = Boolean(page.minId);
  const walk: IdBounds = { maxId: page.maxId, sinceId: ascending ? undefined : page.sinceId, minId: page.minId };
  const seen = new Set<string>();
  const reps: NotificationRow[] = [];
  collect: for (;;) {
    const batch = listNotifications(deps.db, viewerId, filter, walk, WALK_BATCH, ascending);
    for (const row of batch) {
      const key = groupingKey(row, groupedTypes);
      if (seen.has(key)) continue;
      seen.add(key);
      reps.push(row);
      if (reps.length >= page.limit) break collect;
    }
    const last = batch[batch.length - 1];
    if (batch.length < WALK_BATCH || !last) break;
    if (ascending) walk.minId = last.id;
    else walk.maxId = last.id;
  }
  if (ascending) reps.reverse();
  const newest = reps[0];
  const oldest = reps[reps.length - 1];
  if (!newest || !oldest) return { groups: [], range: null };
  // Groups are summarized over the ids the page spans. On the last page in the paging direction
  // (fewer groups than asked), that end is opened up to the request's own bound, so the last
  // groups are not cut to one notification (as Mastodon does since 4.3.3).
  const bounds: SummaryBounds = { from: oldest.id, upTo: newest.id };
  if (reps.length < page.limit) {
    if (ascending) bounds.upTo = page.maxId ? previousId(page.maxId) : null;
    else bounds.from = page.sinceId ? nextId(page.sinceId) : null;
  }
  return { groups: buildGroups(deps, viewerId, reps, groupedTypes, bounds), range: { newest: newest.id, oldest: oldest.id } };
}

/** The viewer's notifications under a group key: `ungrouped-<id>` names one notification by id. */
function notificationsByGroupKey(deps: Deps, viewerId: string, groupKey: string): NotificationRow[] {
  if (groupKey.startsWith('ungrouped-')) {
    const id = groupKey.slice('ungrouped-'.length);
    const row = isId(id) ? findNotification(deps.db, viewerId, id) : undefined;
    return row ? [row] : [];
  }
  return notificationsOfGroup(deps.db, viewerId, groupKey);
}

/** One group by its key, summarized over all its notifications; 404 when the viewer has none under it. */
export function getNotificationGroup(deps: Deps, viewerId: string, groupKey: string): NotificationGroupView {
  const rep = notificationsByGroupKey(deps, viewerId, groupKey)[0];
  if (!rep) throw notFound();
  const [group] = buildGroups(deps, viewerId, [rep], GROUPABLE_TYPES, null);
  if (!group) throw notFound();
  return group;
}

/**
 * One page of the viewer's notifications under a group key, newest first, keyset-paged by
 * notification id; 404 when the viewer has no notification under that key at all.
 */
function groupPage(deps: Deps, viewerId: string, groupKey: string, page: PageBounds): NotificationRow[] {
  if (groupKey.startsWith('ungrouped-')) {
    const [row] = notificationsByGroupKey(deps, viewerId, groupKey);
    if (!row) throw notFound();
    const id = BigInt(row.id);
    const inside =
      (!page.maxId || id < BigInt(page.maxId)) && (!page.sinceId || id > BigInt(page.sinceId)) && (!page.minId || id > BigInt(page.minId));
    return inside && page.limit > 0 ? [row] : [];
  }
  const rows = notificationsOfGroupPage(deps.db, viewerId, groupKey, page);
  if (rows.length === 0 && notificationsOfGroupPage(deps.db, viewerId, groupKey, { limit: 1 }).length === 0) throw notFound();
  return rows;
}

/** Dismisses every notification of a group; 404 when the viewer has none under that key. */
export function dismissNotificationGroup(deps: Deps, viewerId: string, groupKey: string): void {
  groupPage(deps, viewerId, groupKey, { limit: 1 });
  if (groupKey.startsWith('ungrouped-')) {
    deleteNotification(deps.db, viewerId, groupKey.slice('ungrouped-'.length));
    return;
  }
  deleteNotificationGroup(deps.db, viewerId, groupKey);
}

/** A page of the accounts behind a group's notifications. */
export interface GroupAccountPage {
  /** The accounts, most recent notification first, each once. */
  accountIds: string[];
  /** Newest and oldest notification ids of the page (the Link header's cursors); null when empty. */
  range: { first: string; last: string } | null;
}

/**
 * The accounts behind a group's notifications, one page at a time as Mastodon pages them (by
 * notification id, newest first); 404 when the viewer has no notification under that key.
 */
export function notificationGroupAccountPage(deps: Deps, viewerId: string, groupKey: string, page: PageBounds): GroupAccountPage {
  const rows = groupPage(deps, viewerId, groupKey, page);
  const first = rows[0];
  const last = rows[rows.length - 1];
  return { accountIds: [...new Set(rows.map((r) => r.from_account_id))], range: first && last ? { first: first.id, last: last.id } : null };
}

/** How many groups have notifications newer than the viewer's notifications marker, at most `limit`. */
export function unreadGroupCount(deps: Deps, viewerId: string, query: GroupedQuery, limit: number): number {
  // Filtered notifications are never unread (Mastodon's count takes no include_filtered).
  const filter = toFilter({ ...query, includeFiltered: false });
  if (filter.types?.length === 0) return 0;
  return countGroupsAfter(deps.db, viewerId, filter, resolveGroupedTypes(query.groupedTypes), notificationsReadUpTo(deps, viewerId), limit);
}
