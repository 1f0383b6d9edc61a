import { useQuery, useQueryClient } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useEffect } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { GroupList, TYPE_TABS } from './list';
import { POLICY_KEY, PolicyForm } from './policy';
import { RequestList } from './requests';
import './notifications.css';

/**
 * Notifications at `/notifications/:tab?`: grouped notifications filtered by type (the tabs), the
 * filtered requests (`requests`) and the notification policy (`policy`); links to pending follow
 * requests and filtered notifications; new notifications arrive live over the streaming API.
 */
export function Notifications(props: { tab?: string }): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const tab = props.tab ?? 'all';
  // Filtered notifications are not streamed, so the requests count is refreshed every minute.
  const policy = useQuery({ queryKey: POLICY_KEY, queryFn: () => api.rest.v2.notifications.policy.fetch(), refetchInterval: 60_000 });
  const followRequests = useQuery({ queryKey: ['follow-requests', 'count'], queryFn: async () => (await api.rest.v1.followRequests.list({ limit: 80 })).length });

  // Live: a new notification (or merged requests) refreshes the lists and counts.
  useEffect(() => {
    const subscription = api.streaming().user.notification.subscribe();
    let stopped = false;
    void (async () => {
      try {
        for await (const event of subscription) {
          if (stopped) break;
          if (event.event === 'notification' || event.event === 'notifications_merged') {
            void qc.invalidateQueries({ queryKey: ['notifications'] });
            if (event.event === 'notification' && event.payload.type === 'follow_request') void qc.invalidateQueries({ queryKey: ['follow-requests'] });
          }
        }
      } catch {
        // The streaming client reconnects on its own; a closed subscription ends the loop.
      }
    })();
    return () => {
      stopped = true;
      subscription.unsubscribe();
    };
  }, [api, qc]);

  const pending = policy.data?.summary.pendingRequestsCount ?? 0;
  const tabs = [...TYPE_TABS.map((t) => ({ id: t.id, label: t.label })), { id: 'requests', label: pending > 0 ? `Requests (${pending})` : 'Requests' }, { id: 'policy', label: 'Policy' }];
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Notifications</h1>
      {(followRequests.data ?? 0) > 0 && (
        <p class="notice">
          <a href="/people/requests">{followRequests.data === 1 ? '1 follow request' : `${followRequests.data} follow requests`}</a>
        </p>
      )}
      <nav aria-label="Notification filters" class="tabs">
        <ul>
          {tabs.map((t) => (
            <li key={t.id}>
              <a href={t.id === 'all' ? '/notifications' : `/notifications/${t.id}`} aria-current={tab === t.id ? 'page' : undefined}>
                {t.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {tab === 'requests' ? <RequestList /> : tab === 'policy' ? <PolicyForm /> : <GroupList key={tab} tab={tab} />}
    </section>
  );
}
