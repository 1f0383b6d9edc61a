import { useQuery, useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { AccountRow } from '../../components/account/AccountRow';
import { removeFromPaged, usePaged } from '../../components/account/usePaged';
import { toast } from '../../components/layout/toasts';
import { StatusView } from '../../components/status/Status';
import { POLICY_KEY } from './policy';
import { ErrorRetry } from '../../components/layout/ErrorRetry';

type Request = mastodon.v1.NotificationRequest;

const REQUESTS_KEY = ['notifications', 'requests'];

/**
 * The notifications the policy filtered, one request per sender: accept (they join your
 * notifications) or dismiss, one by one or the selected ones at once; "Show notifications" opens
 * what a request holds.
 */
export function RequestList(): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const list = usePaged<Request>(REQUESTS_KEY, (a) => a.rest.v1.notifications.requests.list({ limit: 40 }), { pageSize: 40 });
  const [selected, setSelected] = useState<string[]>([]);
  const act = async (ids: string[], action: 'accept' | 'dismiss'): Promise<void> => {
    const revert = removeFromPaged<Request>(qc, REQUESTS_KEY, (r) => ids.includes(r.id));
    setSelected((s) => s.filter((id) => !ids.includes(id)));
    try {
      if (ids.length === 1) await api.fetchJson(`/api/v1/notifications/requests/${encodeURIComponent(ids[0] ?? '')}/${action}`, { method: 'POST' });
      else await api.fetchJson(`/api/v1/notifications/requests/${action}`, { method: 'POST', body: JSON.stringify({ id: ids }) });
      toast(`${ids.length === 1 ? 'Request' : `${ids.length} requests`} ${action === 'accept' ? 'accepted' : 'dismissed'}.`, { kind: 'info' });
      void qc.invalidateQueries({ queryKey: POLICY_KEY });
      if (action === 'accept') void qc.invalidateQueries({ queryKey: ['notifications', 'groups'] });
    } catch (error) {
      revert();
      toast(describeError(error), { retry: () => void act(ids, action) });
    }
  };
  const allIds = list.items.map((r) => r.id);
  return (
    <section aria-labelledby="requests-title">
      <h2 id="requests-title">Filtered notifications</h2>
      {list.isPending && (
        <p class="loading" role="status">
          Loading…
        </p>
      )}
      {list.error !== null && (
        <div class="error" role="alert">
          <p>{describeError(list.error)}</p>
          <button type="button" onClick={list.refetch}>
            Try again
          </button>
        </div>
      )}
      {!list.isPending && list.items.length === 0 && list.error === null && <p class="empty">No filtered notifications.</p>}
      {list.items.length > 0 && (
        <div class="bulk-actions">
          <label class="checkbox">
            <input type="checkbox" checked={selected.length === allIds.length} onChange={(e) => setSelected(e.currentTarget.checked ? allIds : [])} /> Select all
          </label>
          <button type="button" disabled={selected.length === 0} onClick={() => void act(selected, 'accept')}>
            Accept selected
          </button>
          <button type="button" disabled={selected.length === 0} onClick={() => void act(selected, 'dismiss')}>
            Dismiss selected
          </button>
        </div>
      )}
      <ul class="account-list" aria-label="Requests">
        {list.items.map((r) => (
          <RequestRow key={r.id} request={r} selected={selected.includes(r.id)} onSelect={(on) => setSelected((s) => (on ? [...s, r.id] : s.filter((id) => id !== r.id)))} onAct={(action) => void act([r.id], action)} />
        ))}
      </ul>
      {list.hasMore && list.items.length > 0 && (
        <button type="button" class="load-more" onClick={list.loadMore} disabled={list.loadingMore}>
          Load more
        </button>
      )}
    </section>
  );
}

function RequestRow(props: { request: Request; selected: boolean; onSelect: (on: boolean) => void; onAct: (action: 'accept' | 'dismiss') => void }): JSX.Element {
  const r = props.request;
  const [open, setOpen] = useState(false);
  return (
    <>
      <AccountRow account={r.account} noFollow>
        <label class="checkbox">
          <input type="checkbox" checked={props.selected} onChange={(e) => props.onSelect(e.currentTarget.checked)} />
          <span class="visually-hidden">Select @{r.account.acct}</span>
        </label>
        <span class="muted">{r.notificationsCount === 1 ? '1 notification' : `${r.notificationsCount} notifications`}</span>
        <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide notifications' : 'Show notifications'}
        </button>
        <button type="button" onClick={() => props.onAct('accept')} aria-label={`Accept @${r.account.acct}`}>
          Accept
        </button>
        <button type="button" onClick={() => props.onAct('dismiss')} aria-label={`Dismiss @${r.account.acct}`}>
          Dismiss
        </button>
      </AccountRow>
      {open && (
        <li class="request-notifications">
          <RequestNotifications accountId={r.account.id} acct={r.account.acct} />
        </li>
      )}
    </>
  );
}

/** The notifications one filtered sender sent (v1, with the filtered ones included). */
function RequestNotifications(props: { accountId: string; acct: string }): JSX.Element {
  const api = useApi();
  const query = useQuery({
    queryKey: ['notifications', 'request-items', props.accountId],
    queryFn: async () => await api.rest.v1.notifications.list({ accountId: props.accountId, limit: 40, includeFiltered: true } as mastodon.rest.v1.ListNotificationsParams),
  });
  if (query.isPending)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  if (query.error)
    return (
      <ErrorRetry error={query.error} onRetry={() => query.refetch()} />
    );
  return (
    <div role="feed" aria-label={`Notifications from @${props.acct}`}>
      {query.data.map((n, i) =>
        n.status ? (
          <StatusView key={n.id} status={n.status} posinset={i + 1} setsize={query.data.length} />
        ) : (
          <article key={n.id} class="notification" aria-posinset={i + 1} aria-setsize={query.data.length}>
            <p>
              @{n.account?.acct ?? props.acct}: {n.type}
            </p>
          </article>
        ),
      )}
    </div>
  );
}
