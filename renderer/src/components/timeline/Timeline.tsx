import { useInfiniteQuery, useQueryClient, type InfiniteData, type QueryKey } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useApi, type Api } from '../../instance/client';
import { removeStatusEverywhere, updateStatusEverywhere } from '../../instance/cache';
import { StatusView } from '../status/Status';
import { matchedFilters, type FilterContext } from '../status/preferences';
import { newerId } from './ids';
import { useFeedKeys } from './useFeedKeys';
import { useWindowVirtualizer } from './useWindowVirtualizer';
import './timeline.css';
import { ErrorRetry } from '../layout/ErrorRetry';

type Status = mastodon.v1.Status;
type Pages = InfiniteData<Status[], string | number | undefined>;

/** How a timeline gets live updates: a masto streaming subscription (user, public, hashtag, list…). */
export type StreamOpener = (api: Api) => mastodon.streaming.Subscription;

/** What a timeline screen gives the shared list. */
export interface TimelineProps {
  /** The feed's accessible name ("Home", "Local"…). */
  label: string;
  queryKey: QueryKey;
  /** One page, older than `maxId` when given (timelines paged by status id). */
  fetchPage?: (api: Api, maxId: string | undefined) => PromiseLike<Status[]>;
  /**
   * For lists paged by their Link headers instead (bookmarks, favourites: their order is not the
   * posts' ids): masto's paginator, read one page at a time.
   */
  paginate?: (api: Api) => mastodon.Paginator<Status[], unknown>;
  /** Where the posts are shown, for filters (default `home`). */
  context?: FilterContext;
  /** The newest post read before (the home read marker): a line shows where the reader left off. */
  markerId?: string | null;
  /** Live updates; new posts wait behind the "n new posts" bar until the reader asks for them. */
  stream?: StreamOpener;
  /** Called with the newest post the reader has seen at the top (read markers). */
  onTopSeen?: (id: string) => void;
  /** Shown when the timeline has no posts at all. */
  empty?: string;
  /** Hides posts (filters with `hide`); return false to drop one. */
  keep?: (s: Status) => boolean;
}

/**
 * A timeline as an ARIA `feed` of `article`s in a virtualized list bound to the window's scroll:
 * pages of 20 load as the reader nears the end; live posts gather behind a "n new posts" button
 * that does not move what the reader is reading; deletions and edits apply in place.
 */
export function Timeline(props: TimelineProps): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const context = props.context ?? 'home';
  // The Link-header pager: page 0 starts a fresh one (a refetch re-reads pages 0, 1, 2… in order).
  const pager = useRef<AsyncIterator<Status[], undefined, unknown> | null>(null);
  const query = useInfiniteQuery({
    queryKey: props.queryKey,
    queryFn: async ({ pageParam }): Promise<Status[]> => {
      if (props.paginate) {
        if (pageParam === 0 || !pager.current) pager.current = props.paginate(api)[Symbol.asyncIterator]();
        const next = await pager.current.next();
        return next.done ? [] : next.value;
      }
      return props.fetchPage ? props.fetchPage(api, typeof pageParam === 'string' ? pageParam : undefined) : [];
    },
    initialPageParam: (props.paginate ? 0 : undefined) as string | number | undefined,
    getNextPageParam: (last, pages) => (last.length === 0 ? undefined : props.paginate ? pages.length : last[last.length - 1]?.id),
  });
  const all = useMemo(() => query.data?.pages.flat() ?? [], [query.data]);
  const items = useMemo(() => all.filter((s) => !matchedFilters(s.reblog ?? s, context).hide && (!props.keep || props.keep(s))), [all, props.keep, context]);
  const [pending, setPending] = useState<Status[]>([]);
  const listRef = useRef<HTMLDivElement>(null);
  const [margin, setMargin] = useState(0);
  useLayoutEffect(() => {
    if (listRef.current) setMargin(listRef.current.getBoundingClientRect().top + window.scrollY);
  }, [query.isSuccess]);

  const virtualizer = useWindowVirtualizer({
    count: items.length,
    estimateSize: () => 180,
    getItemKey: (i) => items[i]?.id ?? String(i),
    scrollMargin: margin,
  });
  const visible = virtualizer.getVirtualItems();
  const lastIndex = visible[visible.length - 1]?.index ?? -1;

  useEffect(() => {
    if (lastIndex >= items.length - 5 && query.hasNextPage && !query.isFetchingNextPage) void query.fetchNextPage();
  }, [lastIndex, items.length, query.hasNextPage, query.isFetchingNextPage]);

  const moveTo = useCallback(
    (index: number) => {
      if (index >= items.length - 1 && query.hasNextPage && !query.isFetchingNextPage) void query.fetchNextPage();
      virtualizer.scrollToIndex(index, { align: 'auto' });
      let tries = 0;
      const focus = () => {
        const el = listRef.current?.querySelector<HTMLElement>(`article[aria-posinset="${index + 1}"]`);
        if (el) {
          el.focus({ preventScroll: true });
          el.scrollIntoView({ block: 'nearest' });
        } else if (tries++ < 10) requestAnimationFrame(focus);
      };
      requestAnimationFrame(focus);
    },
    [items.length, query.hasNextPage, query.isFetchingNextPage, virtualizer],
  );
  useFeedKeys(useCallback(() => listRef.current, []), items.length, moveTo);
  const markerId = props.markerId;
  const markerIndex = markerId ? items.findIndex((s) => s.id === markerId) : -1;
  const oldest = items[items.length - 1];
  // The marker may be further down than what has loaded: then the jump loads pages until it is there.
  const markerBelow = markerId && markerIndex === -1 && oldest && newerId(oldest.id, markerId) && query.hasNextPage;
  const jumpToMarker = useCallback(async () => {
    let data = query.data;
    for (let page = 0; markerId && page < 10; page++) {
      const index = (data?.pages.flat() ?? []).filter((s) => !matchedFilters(s.reblog ?? s, context).hide && (!props.keep || props.keep(s))).findIndex((s) => s.id === markerId);
      if (index >= 0) {
        // The list re-renders with the new pages first; then the row can be scrolled to.
        requestAnimationFrame(() => moveTo(index));
        return;
      }
      const next = await query.fetchNextPage();
      if (!next.hasNextPage && next.data === data) return;
      data = next.data;
    }
  }, [query, markerId, context, props.keep, moveTo]);

  // The first post at least partly in view (not the first rendered: a few above are overscan).
  const firstIndex = visible.find((row) => row.end > window.scrollY)?.index ?? visible[0]?.index;
  useEffect(() => {
    const top = firstIndex !== undefined ? items[firstIndex] : undefined;
    if (top && props.onTopSeen) props.onTopSeen(top.id);
  }, [firstIndex, items, props.onTopSeen]);

  // Live updates: new posts wait; deletions and edits apply at once.
  const stream = props.stream;
  useEffect(() => {
    if (!stream) return;
    const subscription = stream(api);
    let stopped = false;
    void (async () => {
      try {
        for await (const event of subscription) {
          if (stopped) break;
          if (event.event === 'update') setPending((p) => (p.some((s) => s.id === event.payload.id) ? p : [event.payload, ...p]));
          else if (event.event === 'delete') {
            setPending((p) => p.filter((s) => s.id !== event.payload));
            removeStatusEverywhere(qc, event.payload);
          } else if (event.event === 'status.update') updateStatusEverywhere(qc, event.payload.id, () => event.payload);
        }
      } catch {
        // The streaming client reconnects on its own; a closed subscription ends the loop.
      }
    })();
    return () => {
      stopped = true;
      subscription.unsubscribe();
    };
  }, [api, stream, qc]);

  const showPending = useCallback(() => {
    qc.setQueryData<Pages>(props.queryKey, (data) => {
      if (!data) return data;
      const known = new Set(data.pages.flat().map((s) => s.id));
      const fresh = pending.filter((s) => !known.has(s.id));
      return { ...data, pages: [[...fresh, ...(data.pages[0] ?? [])], ...data.pages.slice(1)] };
    });
    setPending([]);
    window.scrollTo({ top: 0 });
    requestAnimationFrame(() => listRef.current?.querySelector<HTMLElement>('article')?.focus());
  }, [pending, props.queryKey, qc]);

  if (query.isPending) return <p class="loading" role="status">Loading…</p>;
  if (query.isError && !query.data)
    return (
      <ErrorRetry error={query.error} onRetry={() => query.refetch()} />
    );
  return (
    <>
      {pending.length > 0 && (
        <button type="button" class="new-posts" onClick={showPending}>
          {pending.length === 1 ? '1 new post' : `${pending.length} new posts`}
        </button>
      )}
      {((markerIndex > 0 && (firstIndex ?? 0) < markerIndex) || markerBelow) && (
        <button type="button" class="jump-marker" onClick={() => void jumpToMarker()}>
          Jump to where you left off
        </button>
      )}
      {items.length === 0 && <p class="empty">{props.empty ?? 'Nothing here yet.'}</p>}
      {/* An empty feed is no feed (ARIA wants articles in one): the element stays, for measuring. */}
      <div ref={listRef} role={items.length > 0 ? 'feed' : undefined} aria-label={items.length > 0 ? props.label : undefined} aria-busy={query.isFetching} class="feed" style={{ height: `${virtualizer.getTotalSize()}px` }}>
        {visible.map((row) => {
          const status = items[row.index];
          if (!status) return null;
          return (
            <div key={row.key} data-index={row.index} ref={virtualizer.measureElement} class="feed-row" style={{ transform: `translateY(${row.start - virtualizer.options.scrollMargin}px)` }}>
              {row.index === markerIndex && row.index > 0 && <p class="read-marker">You left off here</p>}
              <StatusView status={status} posinset={row.index + 1} setsize={query.hasNextPage ? -1 : items.length} context={context} />
            </div>
          );
        })}
      </div>
      {query.isFetchingNextPage && <p class="loading" role="status">Loading more…</p>}
      {query.isError && (
        <ErrorRetry error={query.error} onRetry={() => query.fetchNextPage()} />
      )}
    </>
  );
}
