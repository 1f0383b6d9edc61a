import { deleteStatusNotifications } from '../../db/repos/notifications.js';
import { localAcceptedQuotesOf } from '../../db/repos/quotes.js';
import type { Deps } from '../deps.js';
import { createNotification } from '../notifications/create.js';

/**
 * The quote notifications (Mastodon 4.5), subscribed by the notification rules
 * (core/notifications/listeners.ts):
 * - `quote`: the local author of a status hears that a quote of it was accepted, from the quoting
 *   account, about the quoting status;
 * - `quoted_update`: a local account whose accepted quote names a status that was then edited hears
 *   of the edit, from its author, about their own quote (the latest edit replaces the earlier
 *   notification, as `update` does).
 * Returns the unsubscribe functions.
 */
export function quoteNotificationListeners(deps: Deps): (() => void)[] {
  return [
    deps.events.on('quote.accepted', ({ statusId, accountId, quotedAccountId }) => {
      createNotification(deps, { recipientId: quotedAccountId, fromAccountId: accountId, type: 'quote', statusId });
    }),
    deps.events.on('status.updated', ({ statusId, accountId }) => {
      for (const quote of localAcceptedQuotesOf(deps.db, statusId, accountId)) {
        deleteStatusNotifications(deps.db, quote.account_id, 'quoted_update', quote.status_id);
        createNotification(deps, { recipientId: quote.account_id, fromAccountId: accountId, type: 'quoted_update', statusId: quote.status_id });
      }
    }),
  ];
}
