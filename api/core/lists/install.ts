import { removeFromOwnedLists } from '../../db/repos/lists.js';
import type { Deps } from '../deps.js';

/**
 * Subscribes lists to core events (createApp calls it once): when someone stops following an
 * account, that account leaves every list of the former follower, as Mastodon does. (Memberships
 * also reference the follow row and the database drops them with it; the listener states the rule
 * where it belongs and holds even for a membership stored without its follow id.)
 */
export function installLists(deps: Deps): void {
  deps.events.on('follow.deleted', ({ accountId, targetAccountId }) => {
    // An account may list itself without a follow; unfollowing oneself cannot happen.
    if (accountId === targetAccountId) return;
    deps.db.transaction(() => removeFromOwnedLists(deps.db, accountId, targetAccountId));
  });
}
