import { useInfiniteQuery, type InfiniteData, type QueryClient, type QueryKey } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import { useRef } from 'preact/hooks';
import type { Api } from '../../instance/client';
import { useApi } from '../../instance/client';

/** What a paged list gives its screen. */
export interface PagedList<T> {
  items: T[];
  isPending: boolean;
  error: unknown;
  hasMore: boolean;
  loadingMore: boolean;
  loadMore: () => void;
  refetch: () => void;
}

/**
 * A list that pages by the instance's `Link` headers (followers, following, requests…), where the
 * next page's cursor is not an id of the items: masto's paginator walks the pages; the query
 * cache keeps the pages fetched so far under `key`. `pageSize` is the `limit` the paginator asks
 * for, so a short page ends the list without asking for an empty one.
 */
export function usePaged<T>(key: QueryKey, open: (api: Api) => mastodon.Paginator<T[]>, options: { enabled?: boolean; pageSize?: number } = {}): PagedList<T> {
  const enabled = options.enabled ?? true;
  const api = useApi();
  const iterator = useRef<AsyncIterator<T[], undefined, unknown> | null>(null);
  const query = useInfiniteQuery({
    queryKey: key,
    enabled,
    initialPageParam: 0,
    queryFn: async ({ pageParam }) => {
      // The first page (or a refetch from the start) begins a new walk.
      if (pageParam === 0 || !iterator.current) iterator.current = open(api)[Symbol.asyncIterator]();
      const next = await iterator.current.next();
      return { items: next.done ? [] : (next.value ?? []), page: pageParam };
    },
    // A page shorter than the size asked for is the last one.
    getNextPageParam: (last) => (last.items.length > 0 && last.items.length >= (options.pageSize ?? 1) ? last.page + 1 : undefined),
    // Pages after the first depend on the walk in progress, so only the first is refetched.
    refetchOnMount: false,
  });
  return {
    items: query.data?.pages.flatMap((p) => p.items) ?? [],
    isPending: query.isPending && enabled,
    error: query.error,
    hasMore: !!query.hasNextPage,
    loadingMore: query.isFetchingNextPage,
    loadMore: () => void query.fetchNextPage(),
    refetch: () => void query.refetch(),
  };
}

type PagedData<T> = InfiniteData<{ items: T[]; page: number }, number>;

/**
 * Removes the items `drop` picks from a paged list in the cache (an optimistic removal) and
 * returns a function that puts the list back as it was (the revert on failure).
 */
export function removeFromPaged<T>(qc: QueryClient, key: QueryKey, drop: (item: T) => boolean): () => void {
  const before = qc.getQueryData<PagedData<T>>(key);
  if (before) qc.setQueryData<PagedData<T>>(key, { ...before, pages: before.pages.map((p) => ({ ...p, items: p.items.filter((i) => !drop(i)) })) });
  return () => qc.setQueryData<PagedData<T>>(key, before);
}
