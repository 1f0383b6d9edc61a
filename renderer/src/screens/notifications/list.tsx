import { useInfiniteQuery, useQuery, useQueryClient, type InfiniteData } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { GroupRow } from './group';
import { ErrorRetry } from '../../components/layout/ErrorRetry';

type Results = mastodon.v1.GroupedNotificationsResults;
type GroupType = mastodon.v1.NotificationGroupType;

/** The filter tabs and the notification types each shows (none: all). */
export const TYPE_TABS: { id: string; label: string; types?: GroupType[] }[] = [
  { id: 'all', label: 'All' },
  { id: 'mentions', label: 'Mentions', types: ['mention'] },
  { id: 'favourites', label: 'Favourites', types: ['favourite'] },
  { id: 'boosts', label: 'Boosts', types: ['reblog'] },
  { id: 'follows', label: 'Follows', types: ['follow', 'follow_request'] },
  { id: 'polls', label: 'Polls', types: ['poll'] },
  { id: 'posts', label: 'Posts', types: ['status', 'update', 'quote', 'quoted_update'] },
];

const PAGE = 40;

/** Favourites, boosts and follows of the same thing come as one group, as in Mastodon's web UI. */
const GROUPED: GroupType[] = ['favourite', 'reblog', 'follow'];

/** Snowflake-like ids compare by length, then as text. */
export function newerThan(a: string, b: string | null | undefined): boolean {
  if (!b) return true;
  return a.length !== b.length ? a.length > b.length : a > b;
}

/** The query key of the notification list of one filter tab. */
export function groupsKey(tab: string): readonly unknown[] {
  return ['notifications', 'groups', tab];
}

/**
 * The grouped notifications of one filter tab (v2), pages of 40 with "Load more". Reading the
 * "All" tab moves the notifications read marker to the newest group and clears the unread badge;
 * rows newer than the marker as it was when the screen opened are marked unread.
 */
export function GroupList(props: { tab: string }): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const tab = TYPE_TABS.find((t) => t.id === props.tab) ?? TYPE_TABS[0]!;
  const marker = useQuery({
    queryKey: ['markers', 'notifications'],
    queryFn: async () => (await api.rest.v1.markers.fetch({ timeline: ['notifications'] })).notifications?.lastReadId ?? null,
    // Read once per visit: the rows newer than it stay marked unread while the screen is open.
    staleTime: Infinity,
    gcTime: 0,
  });
  const query = useInfiniteQuery({
    queryKey: groupsKey(tab.id),
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      await api.rest.v2.notifications.list({ limit: PAGE, maxId: pageParam ?? null, types: tab.types ?? null, groupedTypes: GROUPED, expandAccounts: 'full' }),
    getNextPageParam: (last: Results) => {
      // The instance walks until it has a full page of groups: a short page is the end.
      if (last.notificationGroups.length < PAGE) return undefined;
      const oldest = last.notificationGroups[last.notificationGroups.length - 1];
      return oldest ? (oldest.pageMinId ?? oldest.mostRecentNotificationId) : undefined;
    },
  });
  const { groups, accounts, statuses } = useMemo(() => merge(query.data), [query.data]);

  // The screen is read: move the marker to the newest notification and clear the badge.
  const saved = useRef<string | null>(null);
  const newest = groups[0]?.mostRecentNotificationId;
  useEffect(() => {
    if (tab.id !== 'all' || !newest || marker.isPending || saved.current === newest) return;
    if (!newerThan(newest, saved.current ?? marker.data)) return;
    saved.current = newest;
    void api.rest.v1.markers
      .create({ notifications: { lastReadId: newest } })
      .then(() => qc.invalidateQueries({ queryKey: ['notifications', 'unread-count'] }))
      .catch(() => {
        // The marker is retried with the next notification; the badge keeps its count meanwhile.
        saved.current = null;
      });
  }, [newest, tab.id, marker.isPending]);

  if (query.isPending)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  if (query.isError && !query.data)
    return (
      <ErrorRetry error={query.error} onRetry={() => query.refetch()} />
    );
  const lastRead = marker.data;
  return (
    <>
      {groups.length === 0 && <p class="empty">No notifications yet.</p>}
      {/* An empty feed is no feed (ARIA wants articles in one). */}
      <div role={groups.length > 0 ? 'feed' : undefined} aria-label={groups.length > 0 ? `Notifications: ${tab.label}` : undefined} aria-busy={query.isFetching} class="notification-feed">
        {groups.map((g, i) => (
          <GroupRow
            key={g.groupKey}
            group={g}
            accounts={sampleIds(g).flatMap((id) => accounts.get(id) ?? [])}
            status={'statusId' in g ? statuses.get(g.statusId) : undefined}
            unread={!marker.isPending && newerThan(g.mostRecentNotificationId, lastRead)}
            posinset={i + 1}
            setsize={query.hasNextPage ? -1 : groups.length}
          />
        ))}
      </div>
      {query.isError && (
        <ErrorRetry error={query.error} onRetry={() => query.fetchNextPage()} />
      )}
      {query.hasNextPage && groups.length > 0 && (
        <button type="button" class="load-more" disabled={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
          {query.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      )}
    </>
  );
}

/** Joins the pages: groups in order (a group seen on an earlier page wins), accounts and statuses by id. */
function merge(data: InfiniteData<Results, unknown> | undefined) {
  const groups: mastodon.v1.NotificationGroup[] = [];
  const seen = new Set<string>();
  const accounts = new Map<string, mastodon.v1.Account>();
  const statuses = new Map<string, mastodon.v1.Status>();
  for (const page of data?.pages ?? []) {
    for (const a of page.accounts) accounts.set(a.id, a);
    for (const s of page.statuses) statuses.set(s.id, s);
    for (const g of page.notificationGroups) {
      if (seen.has(g.groupKey)) continue;
      seen.add(g.groupKey);
      groups.push(g);
    }
  }
  return { groups, accounts, statuses };
}

/** masto types `sample_account_ids` as one string; the API sends an array. */
function sampleIds(group: mastodon.v1.NotificationGroup): string[] {
  const ids: unknown = group.sampleAccountIds;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : typeof ids === 'string' ? [ids] : [];
}
