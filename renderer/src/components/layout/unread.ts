import { useQuery } from '@tanstack/preact-query';
import { useApi } from '../../instance/client';

/** The number of unread notifications (v2 grouped count), refreshed every minute and by the notifications screen. */
export function useUnreadNotifications(): number {
  const api = useApi();
  const query = useQuery({
    queryKey: ['notifications', 'unread-count'],
    queryFn: () => api.fetchJson<{ count: number }>('/api/v2/notifications/unread_count'),
    refetchInterval: 60_000,
  });
  return query.data?.count ?? 0;
}
