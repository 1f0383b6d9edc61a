import { useQuery } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useApi } from '../../instance/client';
import { ErrorRetry } from '../../components/layout/ErrorRetry';
import { destination, parseOpenTarget, searchQuery } from './target';

/**
 * `/open?uri=`: a post or account named by a link from another app (the desktop's `web+ap://` and
 * `web+mastodon://` links, see electron/links/protocol.ts), by URL or handle. The instance resolves
 * it (`GET /api/v2/search?resolve=true`, fetching it from its server when it does not know it yet),
 * and the screen is replaced by the post's thread or the profile; when nothing is found, or the
 * instance cannot be reached, it says so with "Try again".
 */
export function OpenLink(_props: Record<string, unknown>): JSX.Element {
  const api = useApi();
  const { query, route } = useLocation();
  const uri = query.uri ?? '';
  const target = parseOpenTarget(uri, window.location.origin);
  const lookup = useQuery({
    queryKey: ['open', uri],
    enabled: target !== null,
    // Asked afresh each time: what was not found may exist by now.
    staleTime: 0,
    gcTime: 0,
    retry: false,
    queryFn: async () => {
      if (!target) return null;
      const found = await api.rest.v2.search.list({ q: searchQuery(target), resolve: true, type: target.kind === 'acct' ? 'accounts' : null, limit: 5 });
      return destination(target, found, window.location.host);
    },
  });
  const path = lookup.data ?? null;

  // Found: the link's page takes this one's place in the history (Back goes where the person was).
  useEffect(() => {
    if (path) route(path, true);
  }, [path]);

  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Opening a link</h1>
      {target === null ? (
        <p role="alert">This link cannot be opened: it does not name a post or an account Hearth can look up.</p>
      ) : lookup.isPending || lookup.isFetching || path ? (
        <p class="loading" role="status">
          Looking up {uri}…
        </p>
      ) : lookup.isError ? (
        <ErrorRetry error={lookup.error} onRetry={() => lookup.refetch()} what={`Looking up ${uri}`} />
      ) : (
        <div class="error" role="alert">
          <p>
            Hearth could not find {target.kind === 'acct' ? 'this account' : 'this post or account'}: {uri}. It may have been deleted, or its server may
            not be answering right now.
          </p>
          <button type="button" onClick={() => void lookup.refetch()}>
            Try again
          </button>
        </div>
      )}
    </section>
  );
}
