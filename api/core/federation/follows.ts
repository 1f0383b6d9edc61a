import type { AccountRow } from '../../db/repos/accounts.js';
import { setFollowUri } from '../../db/repos/federation.js';
import { adjustFollowCounts, deleteFollowRequest, findFollow, findFollowRequest, insertFollow } from '../../db/repos/follows.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { followAccount, unfollowAccount, type FollowOutcome } from '../relationships/follows.js';

/**
 * A remote account follows a local one (inbound Follow): the same `followAccount` the REST API
 * uses (a locked account gets a request), remembering the Follow's id to answer it with Accept.
 */
export function receiveRemoteFollow(deps: Deps, follower: AccountRow, targetAccountId: string, followUri: string): FollowOutcome {
  const outcome = followAccount(deps, follower, targetAccountId);
  if (outcome.kind === 'followed') {
    setFollowUri(deps.db, 'follows', outcome.follow.id, followUri);
    outcome.follow.uri = followUri;
  } else {
    setFollowUri(deps.db, 'follow_requests', outcome.request.id, followUri);
    outcome.request.uri = followUri;
  }
  return outcome;
}

/** A remote account withdraws its follow of a local one (inbound Undo Follow). */
export function receiveRemoteUnfollow(deps: Deps, follower: AccountRow, targetAccountId: string): void {
  unfollowAccount(deps, follower, targetAccountId);
}

/**
 * The Follow behind a remote account's follow (or pending request) of a local account: `found`
 * false when there is none, else the Follow activity's id as stored (null when unknown).
 */
export function remoteFollowOf(deps: Deps, follower: AccountRow, targetAccountId: string): { found: false } | { found: true; uri: string | null } {
  const row = findFollow(deps.db, follower.id, targetAccountId) ?? findFollowRequest(deps.db, follower.id, targetAccountId);
  return row ? { found: true, uri: row.uri ?? null } : { found: false };
}

/**
 * A remote account accepted a local account's follow request (inbound Accept of our Follow): the
 * request becomes a follow and the counters move. Accepting twice changes nothing. Emits
 * 'follow.created'.
 */
export function remoteAcceptedFollow(deps: Deps, follower: AccountRow, target: AccountRow): boolean {
  const at = now();
  const done = deps.db.transaction(() => {
    const request = findFollowRequest(deps.db, follower.id, target.id);
    if (!request || findFollow(deps.db, follower.id, target.id)) return null;
    deleteFollowRequest(deps.db, request.id);
    insertFollow(deps.db, { ...request, updated_at: at });
    adjustFollowCounts(deps.db, follower.id, target.id, 1);
    return request;
  });
  if (!done) return false;
  // No 'follow_request.deleted': the request became the follow (delivery would read it as an Undo).
  deps.events.emit('follow.created', { followId: done.id, accountId: follower.id, targetAccountId: target.id });
  return true;
}

/** A remote account refused (Reject) or ended a local account's follow of it. */
export function remoteRejectedFollow(deps: Deps, follower: AccountRow, target: AccountRow): void {
  unfollowAccount(deps, follower, target.id);
}
