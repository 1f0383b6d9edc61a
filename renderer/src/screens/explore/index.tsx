import { useQuery } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { Card } from '../../components/card/Card';
import { StatusView } from '../../components/status/Status';
import './explore.css';

const TABS = [
  { tab: 'posts', label: 'Posts' },
  { tab: 'tags', label: 'Hashtags' },
  { tab: 'links', label: 'News' },
] as const;
type Tab = (typeof TABS)[number]['tab'];

const BARS = '▁▂▃▄▅▆▇█';

/** A tag's week of use as a text sparkline (oldest day first) and the sentence it stands for. */
export function sparkline(history: readonly mastodon.v1.TagHistory[]): { bars: string; label: string; uses: number; people: number } {
  const days = [...history].reverse();
  const uses = days.map((d) => Number(d.uses) || 0);
  const max = Math.max(1, ...uses);
  const bars = uses.map((u) => BARS[Math.round((u / max) * (BARS.length - 1))] ?? BARS[0]).join('');
  const total = uses.reduce((a, b) => a + b, 0);
  const people = days.slice(-2).reduce((a, d) => a + (Number(d.accounts) || 0), 0);
  return { bars, label: `Uses per day over the last ${days.length} days: ${uses.join(', ')}`, uses: total, people };
}

/** The "Try again" box of a failed query. */
function Failed(props: { error: unknown; retry: () => void }): JSX.Element {
  return (
    <div class="error" role="alert">
      <p>{describeError(props.error)}</p>
      <button type="button" onClick={props.retry}>
        Try again
      </button>
    </div>
  );
}

function Loading(): JSX.Element {
  return (
    <p class="loading" role="status">
      Loading…
    </p>
  );
}

function TrendingPosts(): JSX.Element {
  const api = useApi();
  const q = useQuery({ queryKey: ['trends', 'statuses'], queryFn: async (): Promise<mastodon.v1.Status[]> => await api.rest.v1.trends.statuses.list({ limit: 20 }) });
  if (q.isPending) return <Loading />;
  if (q.isError) return <Failed error={q.error} retry={() => void q.refetch()} />;
  if (q.data.length === 0) return <p class="empty">No trending posts right now.</p>;
  return (
    <div role="feed" aria-label="Trending posts" aria-busy={q.isFetching}>
      {q.data.map((s, i) => (
        <StatusView key={s.id} status={s} context="public" posinset={i + 1} setsize={q.data.length} />
      ))}
    </div>
  );
}

function TrendingTags(): JSX.Element {
  const api = useApi();
  const q = useQuery({ queryKey: ['trends', 'tags'], queryFn: async (): Promise<mastodon.v1.Tag[]> => await api.rest.v1.trends.tags.list({ limit: 20 }) });
  if (q.isPending) return <Loading />;
  if (q.isError) return <Failed error={q.error} retry={() => void q.refetch()} />;
  if (q.data.length === 0) return <p class="empty">No trending hashtags right now.</p>;
  return (
    <ul class="trend-tags" aria-label="Trending hashtags">
      {q.data.map((t) => {
        const line = sparkline(t.history ?? []);
        return (
          <li key={t.name}>
            <a href={`/tags/${encodeURIComponent(t.name)}`}>#{t.name}</a>
            <span class="trend-people">{line.people === 1 ? '1 person in the past 2 days' : `${line.people} people in the past 2 days`}</span>
            <span class="sparkline" role="img" aria-label={line.label}>
              {line.bars}
            </span>
          </li>
        );
      })}
    </ul>
  );
}

function TrendingLinks(): JSX.Element {
  const api = useApi();
  const q = useQuery({ queryKey: ['trends', 'links'], queryFn: async (): Promise<mastodon.v1.TrendLink[]> => await api.rest.v1.trends.links.list({ limit: 20 }) });
  if (q.isPending) return <Loading />;
  if (q.isError) return <Failed error={q.error} retry={() => void q.refetch()} />;
  if (q.data.length === 0) return <p class="empty">No trending links right now.</p>;
  return (
    <ul class="trend-links" aria-label="Trending links">
      {q.data.map((l) => (
        <li key={l.url}>
          <Card card={l} />
        </li>
      ))}
    </ul>
  );
}

/** Explore (`/explore/:tab?`): what is trending on the instance, posts, hashtags and links, in tabs that are links. */
export function Explore(props: { tab?: string }): JSX.Element {
  const tab: Tab = TABS.some((t) => t.tab === props.tab) ? (props.tab as Tab) : 'posts';
  return (
    <section aria-labelledby="explore-title">
      <h1 id="explore-title">Explore</h1>
      <nav aria-label="Explore" class="explore-tabs">
        <ul>
          {TABS.map((t) => (
            <li key={t.tab}>
              <a href={`/explore/${t.tab}`} aria-current={t.tab === tab ? 'page' : undefined}>
                {t.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {tab === 'posts' ? <TrendingPosts /> : tab === 'tags' ? <TrendingTags /> : <TrendingLinks />}
    </section>
  );
}
