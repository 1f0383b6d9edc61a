import { useQuery } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useCallback, useEffect, useMemo, useRef } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { matchedFilters } from '../../components/status/preferences';
import { StatusView } from '../../components/status/Status';
import { useFeedKeys } from '../../components/timeline/useFeedKeys';
import './thread.css';

type Status = mastodon.v1.Status;

/** How far each reply is indented: its depth below the focused post (capped, for narrow screens). */
function depths(focused: Status, descendants: readonly Status[]): Map<string, number> {
  const depth = new Map<string, number>([[focused.id, 0]]);
  // Descendants come in thread order, so each parent is seen before its replies.
  for (const s of descendants) depth.set(s.id, Math.min((depth.get(s.inReplyToId ?? '') ?? 0) + 1, 4));
  return depth;
}

/**
 * A thread (`/@acct/:id`): the posts it replies to, the post itself (highlighted, `aria-current`,
 * focused when it loads so the reader starts there), then the replies, indented by depth.
 */
export function Thread(props: { acct: string; id: string }): JSX.Element {
  const api = useApi();
  const status = useQuery({ queryKey: ['status', props.id], queryFn: () => api.rest.v1.statuses.$select(props.id).fetch() });
  const context = useQuery({ queryKey: ['context', props.id], queryFn: () => api.rest.v1.statuses.$select(props.id).context.fetch() });
  const feed = useRef<HTMLDivElement>(null);
  const focusedOnce = useRef<string | null>(null);
  const keep = (s: Status) => !matchedFilters(s, 'thread').hide;
  const ancestors = (context.data?.ancestors ?? []).filter(keep);
  const descendants = (context.data?.descendants ?? []).filter(keep);
  const depth = useMemo(() => (status.data ? depths(status.data, descendants) : new Map<string, number>()), [status.data, context.data]);

  const total = ancestors.length + 1 + descendants.length;
  useFeedKeys(
    useCallback(() => feed.current, []),
    total,
    useCallback((i: number) => {
      const el = feed.current?.querySelector<HTMLElement>(`article[aria-posinset="${i + 1}"]`);
      el?.focus({ preventScroll: true });
      el?.scrollIntoView({ block: 'nearest' });
    }, []),
  );

  useEffect(() => {
    if (!status.data || context.isPending || focusedOnce.current === props.id) return;
    focusedOnce.current = props.id;
    const el = feed.current?.querySelector<HTMLElement>('article[aria-current="true"]');
    el?.focus({ preventScroll: true });
    el?.scrollIntoView({ block: 'start' });
  }, [status.data, context.isPending, props.id]);

  const error = status.error ?? context.error;
  const title = status.data ? `Post by ${status.data.account.displayName || status.data.account.username}` : 'Post';
  return (
    <section aria-labelledby="thread-title">
      <h1 id="thread-title" class="thread-title">{title}</h1>
      {(status.isPending || context.isPending) && !error && (
        <p class="loading" role="status">
          Loading…
        </p>
      )}
      {error && (
        <div class="error" role="alert">
          <p>{describeError(error)}</p>
          <button
            type="button"
            onClick={() => {
              void status.refetch();
              void context.refetch();
            }}
          >
            Try again
          </button>
        </div>
      )}
      {status.data && (
        <div ref={feed} role="feed" aria-label="Thread" aria-busy={context.isFetching} class="thread">
          {ancestors.map((s, i) => (
            <StatusView key={s.id} status={s} context="thread" posinset={i + 1} setsize={total} />
          ))}
          <StatusView status={status.data} focused context="thread" posinset={ancestors.length + 1} setsize={total} />
          {descendants.map((s, i) => (
            <div key={s.id} class={`thread-depth-${depth.get(s.id) ?? 1}`}>
              <StatusView status={s} context="thread" posinset={ancestors.length + 2 + i} setsize={total} />
            </div>
          ))}
        </div>
      )}
    </section>
  );
}
