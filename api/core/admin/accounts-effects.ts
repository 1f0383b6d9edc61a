import { localAccountsFollowedBy } from '../../db/repos/admin-accounts.js';
import type { AccountRow } from '../../db/repos/accounts.js';
import { localFollowerIds } from '../../db/repos/federation.js';
import { derivedTransaction, findFollowedAccounts } from '../../db/repos/feeds.js';
import type { Deps } from '../deps.js';
import { unfollowAccount } from '../relationships/follows.js';
import { followOptions, mergeAccountIntoHome, unmergeAccountFromHome } from '../timelines/fanout.js';

/**
 * What a suspension does beyond the flag, as Mastodon's SuspendAccountService and
 * UnsuspendAccountService: an account's statuses leave (and come back to) its local followers'
 * home feeds, and a suspended remote account loses its follows of local accounts.
 */

/** Removes a (suspended) account's statuses and boosts from the home feeds of its local followers. */
export function unmergeFromFollowerHomes(deps: Deps, accountId: string): void {
  for (const followerId of localFollowerIds(deps.db, accountId)) unmergeAccountFromHome(deps, followerId, accountId);
}

/** Brings an (unsuspended) account's recent statuses back into its local followers' home feeds. */
export function remergeIntoFollowerHomes(deps: Deps, accountId: string): void {
  for (const followerId of localFollowerIds(deps.db, accountId)) {
    const follows = findFollowedAccounts(deps.db, followerId);
    const follow = follows.find((f) => f.target_account_id === accountId);
    // A pending request brings nothing into the feed.
    if (!follow) continue;
    const followed = new Set(follows.map((f) => f.target_account_id));
    derivedTransaction(deps.db, () => mergeAccountIntoHome(deps, followerId, accountId, followOptions(follow), followed));
  }
}

/**
 * A remote account suspended here stops following local accounts: it keeps its server, where it
 * would otherwise go on receiving what they post to followers. Each follow (or request) ends as
 * an unfollow does, and its server is told with Reject(Follow) (federation, on 'follow.deleted').
 * Not undone by unsuspending, as in Mastodon: nothing can make it follow again.
 */
export function rejectRemoteFollows(deps: Deps, account: AccountRow): void {
  if (account.domain === null) return;
  for (const targetId of localAccountsFollowedBy(deps.db, account.id)) unfollowAccount(deps, account, targetId);
}
