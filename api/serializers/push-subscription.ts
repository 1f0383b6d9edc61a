import type { StoredAlerts } from '../core/push/alerts.js';
import type { PushSubscriptionRow } from '../db/repos/push-subscriptions.js';

/** Mastodon's WebPushSubscription entity. */
export interface MastodonWebPushSubscription {
  id: string;
  endpoint: string;
  /** Whether pushes follow RFC 8030, 8291 and 8292 (else the earlier drafts). */
  standard: boolean;
  /** Notification type → whether it is pushed. */
  alerts: Record<string, boolean>;
  /** The instance's VAPID public key. */
  server_key: string;
  policy: string;
}

/** The alerts the entity always lists: Mastodon's documented ones, in its order. */
const LISTED_ALERTS = [
  'mention',
  'status',
  'reblog',
  'follow',
  'follow_request',
  'favourite',
  'poll',
  'update',
  'admin.sign_up',
  'admin.report',
  'quote',
  'quoted_update',
] as const;

/**
 * The entity of a subscription, with its alerts as core read them (cast as Mastodon casts them).
 * Every documented alert is listed (false when never given), where Mastodon lists only those
 * given: clients and the entity's description expect them all, and an absent alert is off either
 * way. Other types given (`moderation_warning`…) are listed too.
 */
export function toMastodonWebPushSubscription(row: PushSubscriptionRow, stored: StoredAlerts, serverKey: string): MastodonWebPushSubscription {
  const alerts: Record<string, boolean> = {};
  for (const type of LISTED_ALERTS) alerts[type] = stored[type] === true;
  for (const [type, value] of Object.entries(stored)) alerts[type] = value === true;
  return { id: row.id, endpoint: row.endpoint, standard: row.standard === 1, alerts, server_key: serverKey, policy: row.policy };
}
