import { useQuery } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useApi } from '../../instance/client';
import { AccountRow } from '../../components/account/AccountRow';
import { StatusView } from '../../components/status/Status';
import './search.css';
import { ErrorRetry } from '../../components/layout/ErrorRetry';

/**
 * Search at `/search?q=`: accounts, hashtags and posts. The instance resolves what it does not know
 * yet (`resolve=true`), so a remote handle (`@user@example.org`) or a post's URL finds it; results
 * link into the app.
 */
export function Search(): JSX.Element {
  const api = useApi();
  const { query, route } = useLocation();
  const q = (query.q ?? '').trim();
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  const results = useQuery({
    queryKey: ['search', q],
    queryFn: async () => await api.rest.v2.search.list({ q, resolve: true, limit: 20 }),
    enabled: q.length > 0,
  });
  const submit = (e: Event) => {
    e.preventDefault();
    const next = text.trim();
    if (next) route(`/search?q=${encodeURIComponent(next)}`);
  };
  const data = results.data;
  const nothing = data && data.accounts.length === 0 && data.hashtags.length === 0 && data.statuses.length === 0;
  return (
    <section aria-labelledby="screen-title" class="search">
      <h1 id="screen-title">Search</h1>
      <form role="search" onSubmit={submit} class="search-form">
        <label for="search-q">Search for people, hashtags, posts or addresses</label>
        <div class="search-row">
          <input id="search-q" type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} placeholder="@someone@example.org, #tag, words or a link" autoComplete="off" />
          <button type="submit" class="primary">
            Search
          </button>
        </div>
      </form>
      {!q && (
        <p class="muted">
          Looking for people to follow? See the <a href="/people">suggestions</a>.
        </p>
      )}
      {q && results.isPending && (
        <p class="loading" role="status">
          Searching…
        </p>
      )}
      {results.error && (
        <ErrorRetry error={results.error} onRetry={() => results.refetch()} />
      )}
      {nothing && <p class="empty">Nothing found for “{q}”.</p>}
      {data && data.accounts.length > 0 && (
        <section aria-labelledby="search-accounts">
          <h2 id="search-accounts">People</h2>
          <ul class="account-list" aria-labelledby="search-accounts">
            {data.accounts.map((a) => (
              <AccountRow key={a.id} account={a} />
            ))}
          </ul>
        </section>
      )}
      {data && data.hashtags.length > 0 && (
        <section aria-labelledby="search-tags">
          <h2 id="search-tags">Hashtags</h2>
          <ul class="tag-list" aria-labelledby="search-tags">
            {data.hashtags.map((t) => (
              <li key={t.name}>
                <a href={`/tags/${encodeURIComponent(t.name)}`}>#{t.name}</a>
              </li>
            ))}
          </ul>
        </section>
      )}
      {data && data.statuses.length > 0 && (
        <section aria-labelledby="search-posts">
          <h2 id="search-posts">Posts</h2>
          <div role="feed" aria-label="Posts found">
            {data.statuses.map((s, i) => (
              <StatusView key={s.id} status={s} posinset={i + 1} setsize={data.statuses.length} />
            ))}
          </div>
        </section>
      )}
    </section>
  );
}
