import { useQuery } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useApi } from '../../instance/client';
import { Timeline } from '../../components/timeline/Timeline';
import { ErrorRetry } from '../../components/layout/ErrorRetry';

/** A list's timeline (`/lists/:id`), titled from the list, live over the `list` stream. */
export function ListTimeline(props: { id?: string }): JSX.Element {
  const api = useApi();
  const id = props.id ?? '';
  const list = useQuery({ queryKey: ['list', id], queryFn: () => api.rest.v1.lists.$select(id).fetch() });
  const title = list.data?.title ?? 'List';
  return (
    <section aria-labelledby="list-title">
      <div class="feed-header">
        <h1 id="list-title">{title}</h1>
        <a href="/lists">All lists</a>
      </div>
      {list.isError ? (
        <ErrorRetry error={list.error} onRetry={() => list.refetch()} />
      ) : (
        <Timeline
          key={id}
          label={title}
          queryKey={['timeline', 'list', id]}
          fetchPage={(a, maxId) => a.rest.v1.timelines.list.$select(id).list({ limit: 20, maxId })}
          stream={(a) => a.streaming().list.subscribe({ list: id })}
          context="home"
          empty="No posts in this list yet. Add people to it to see their posts here."
        />
      )}
    </section>
  );
}
