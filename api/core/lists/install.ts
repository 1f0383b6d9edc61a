import { findFollow } from '../../db/repos/follows.js';
import { attachFollowToMemberships, removeFromOwnedLists } from '../../db/repos/lists.js';
import type { Deps } from '../deps.js';

/**
 * Subscribes lists to core events (createApp calls it once), keeping memberships tied to the
 * owner's relationship with the member, as Mastodon's ListAccount is:
 * - when someone stops following an account, that account leaves every list of the former
 *   follower (memberships also reference the follow row and the database drops them with it; the
 *   listener states the rule where it belongs and holds for a membership without a follow id);
 * - a member added on a pending follow request takes the follow once the request is accepted;
 * - when such a request ends without a follow (withdrawn, rejected), the member leaves the lists.
 */
export function installLists(deps: Deps): void {
  deps.events.on('follow.deleted', ({ accountId, targetAccountId }) => {
    // An account may list itself without a follow; unfollowing oneself cannot happen.
    if (accountId === targetAccountId) return;
    deps.db.transaction(() => removeFromOwnedLists(deps.db, accountId, targetAccountId));
  });

  deps.events.on('follow.created', ({ followId, accountId, targetAccountId }) => {
    if (accountId === targetAccountId) return;
    deps.db.transaction(() => attachFollowToMemberships(deps.db, accountId, targetAccountId, followId));
  });

  deps.events.on('follow_request.deleted', ({ accountId, targetAccountId }) => {
    if (accountId === targetAccountId) return;
    // An accepted request is deleted too, after its follow was made: those members stay.
    deps.db.transaction(() => {
      if (!findFollow(deps.db, accountId, targetAccountId)) removeFromOwnedLists(deps.db, accountId, targetAccountId);
    });
  });
}
