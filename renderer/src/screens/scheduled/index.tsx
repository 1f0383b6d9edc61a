import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { localInputValue } from '../../components/compose/state';
import { toast } from '../../components/layout/toasts';
import { RelativeTime } from '../../components/time/RelativeTime';
import './scheduled.css';
import { ErrorRetry } from '../../components/layout/ErrorRetry';

type Scheduled = mastodon.v1.ScheduledStatus;
const KEY = ['scheduled'];

/**
 * `/scheduled`: the posts waiting for their time (`/api/v1/scheduled_statuses`), soonest first;
 * each can get another time (`PUT /api/v1/scheduled_statuses/:id`) or be cancelled. Both
 * changes show at once and are put back, with a message and a retry, when the instance refuses.
 */
export function Scheduled(_props: Record<string, unknown>): JSX.Element {
  const api = useApi();
  const list = useQuery({
    queryKey: KEY,
    queryFn: async () => {
      const items = await api.rest.v1.scheduledStatuses.list({ limit: 40 });
      return [...items].sort((a, b) => a.scheduledAt.localeCompare(b.scheduledAt));
    },
  });
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Scheduled posts</h1>
      {list.isPending && (
        <p class="loading" role="status">
          Loading…
        </p>
      )}
      {list.isError && (
        <ErrorRetry error={list.error} onRetry={() => list.refetch()} />
      )}
      {list.data && list.data.length === 0 && <p class="empty">No scheduled posts. Choose “Schedule” when writing a post to publish it later.</p>}
      {list.data && list.data.length > 0 && (
        <ul class="scheduled-list" aria-label="Scheduled posts">
          {list.data.map((item) => (
            <ScheduledItem key={item.id} item={item} />
          ))}
        </ul>
      )}
    </section>
  );
}

function summary(item: Scheduled): string {
  const text = item.params.text || item.params.spoilerText || '(no text)';
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function ScheduledItem(props: { item: Scheduled }): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const { item } = props;
  const [editing, setEditing] = useState(false);
  const [when, setWhen] = useState(() => localInputValue(new Date(item.scheduledAt)));
  const name = summary(item);

  const patchList = (fn: (items: Scheduled[]) => Scheduled[]) => qc.setQueryData<Scheduled[]>(KEY, (items) => (items ? fn(items) : items));
  const move = useMutation({
    mutationFn: (scheduledAt: string) => api.rest.v1.scheduledStatuses.$select(item.id).update({ scheduledAt }),
    onMutate: (scheduledAt) => {
      const before = qc.getQueryData<Scheduled[]>(KEY);
      patchList((items) => items.map((x) => (x.id === item.id ? { ...x, scheduledAt } : x)).sort((a, b) => a.scheduledAt.localeCompare(b.scheduledAt)));
      setEditing(false);
      return { before };
    },
    onSuccess: (fresh) => patchList((items) => items.map((x) => (x.id === item.id ? fresh : x))),
    onError: (error, scheduledAt, ctx) => {
      qc.setQueryData(KEY, ctx?.before);
      toast(describeError(error), { retry: () => move.mutate(scheduledAt) });
    },
  });
  const cancel = useMutation({
    mutationFn: () => api.rest.v1.scheduledStatuses.$select(item.id).remove(),
    onMutate: () => {
      const before = qc.getQueryData<Scheduled[]>(KEY);
      patchList((items) => items.filter((x) => x.id !== item.id));
      return { before };
    },
    onError: (error, _v, ctx) => {
      qc.setQueryData(KEY, ctx?.before);
      toast(describeError(error), { retry: () => cancel.mutate() });
    },
  });

  const inputId = `scheduled-time-${item.id}`;
  return (
    <li class="scheduled-item">
      <article aria-label={`Scheduled post: ${name}`}>
        {item.params.spoilerText && <p class="scheduled-cw">CW: {item.params.spoilerText}</p>}
        <p class="scheduled-text">{item.params.text}</p>
        {item.mediaAttachments.length > 0 && <p class="scheduled-when">{item.mediaAttachments.length === 1 ? '1 attachment' : `${item.mediaAttachments.length} attachments`}</p>}
        <p class="scheduled-when">
          Publishes <time dateTime={item.scheduledAt}>{new Date(item.scheduledAt).toLocaleString()}</time> (<RelativeTime iso={item.scheduledAt} />)
        </p>
        <div class="scheduled-actions">
          {editing ? (
            <form
              class="scheduled-actions"
              onSubmit={(e) => {
                e.preventDefault();
                const date = new Date(when);
                if (!Number.isNaN(date.getTime())) move.mutate(date.toISOString());
              }}
            >
              <div>
                <label for={inputId}>New time</label>
                <input id={inputId} type="datetime-local" value={when} onInput={(e) => setWhen(e.currentTarget.value)} />
              </div>
              <button type="submit" class="primary">
                Save time
              </button>
              <button type="button" onClick={() => setEditing(false)}>
                Keep time
              </button>
            </form>
          ) : (
            <button type="button" aria-label={`Change time of: ${name}`} onClick={() => setEditing(true)}>
              Change time
            </button>
          )}
          <button type="button" aria-label={`Cancel post: ${name}`} onClick={() => cancel.mutate()}>
            Cancel post
          </button>
        </div>
      </article>
    </li>
  );
}
