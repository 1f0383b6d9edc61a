import type { Deps } from '../deps.js';
import { queueNotificationPushes } from './delivery.js';
import { removePushSubscription } from './subscriptions.js';

/**
 * Subscribes Web Push to core events: a new notification (filtered ones are never announced) is
 * pushed to the recipient's subscriptions that want it, and a revoked token's subscription goes.
 * Returns the functions that unsubscribe. Due pushes are also resumed by the job scheduler
 * (`resumePushDeliveries`).
 */
export function installPush(deps: Deps): (() => void)[] {
  return [
    deps.events.on('notification.created', ({ notificationId, accountId }) => queueNotificationPushes(deps, notificationId, accountId)),
    deps.events.on('token.revoked', ({ tokenId }) => removePushSubscription(deps, tokenId)),
  ];
}
