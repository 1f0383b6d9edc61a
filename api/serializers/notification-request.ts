import type { NotificationRequestView } from '../db/repos/notification-requests.js';
import { isoTime } from '../util/clock.js';
import type { Account } from './account.js';
import type { MastodonStatus } from './status.js';

/** Mastodon's NotificationRequest entity: the filtered notifications from one account. */
export interface MastodonNotificationRequest {
  id: string;
  created_at: string;
  updated_at: string;
  /** A string, as Mastodon serializes it. */
  notifications_count: string;
  account: Account;
  /** The status of the latest filtered notification; null when none is left to show. */
  last_status: MastodonStatus | null;
}

/** Converts a request with its loaded account and latest status. */
export function toMastodonNotificationRequest(view: NotificationRequestView, account: Account, lastStatus: MastodonStatus | null): MastodonNotificationRequest {
  return {
    id: view.id,
    created_at: isoTime(view.created_at),
    updated_at: isoTime(view.updated_at),
    notifications_count: String(view.notifications_count),
    account,
    last_status: lastStatus,
  };
}
