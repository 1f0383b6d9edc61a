import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import {
  adjustFollowCounts,
  deleteFollow,
  deleteFollowRequest,
  findFollow,
  findFollowRequest,
  followRequestPage,
  insertFollow,
  pendingRequestsTo,
  type FollowRequestRow,
  type FollowRow,
} from '../../db/repos/follows.js';
import type { PageBounds } from '../../db/paging.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';

/** A page of the accounts asking to follow the viewer, newest request first, as (request id, account id). */
export function listFollowRequests(deps: Deps, viewerId: string, page: PageBounds): { request_id: string; account_id: string }[] {
  return followRequestPage(deps.db, viewerId, page);
}

/**
 * Turns a pending request into a follow inside the caller's transaction: the follow keeps the
 * options the request carried from the start (reblogs, notify, languages). Returns the follow.
 */
function acceptRequest(deps: Deps, request: FollowRequestRow, at: number): FollowRow {
  const existing = findFollow(deps.db, request.account_id, request.target_account_id);
  deleteFollowRequest(deps.db, request.id);
  // A follow that exists already (accepted twice by federation) is kept as it is.
  if (existing) return existing;
  const follow: FollowRow = { ...request, id: newId(at), created_at: at, updated_at: at };
  insertFollow(deps.db, follow);
  adjustFollowCounts(deps.db, request.account_id, request.target_account_id, 1);
  return follow;
}

function emitAccepted(deps: Deps, request: FollowRequestRow, follow: FollowRow, created: boolean): void {
  const ids = { accountId: request.account_id, targetAccountId: request.target_account_id };
  deps.events.emit('follow_request.deleted', { followRequestId: request.id, ...ids });
  deps.events.emit('follow_request.authorized', { followRequestId: request.id, followId: follow.id, ...ids });
  if (created) deps.events.emit('follow.created', { followId: follow.id, ...ids, fromRequest: true });
}

/**
 * The viewer accepts the pending request of `requesterId` (POST /api/v1/follow_requests/:id/authorize,
 * where the id is the requesting account's, as Mastodon has it). 404 when there is no such request.
 */
export function authorizeFollowRequest(deps: Deps, viewer: AccountRow, requesterId: string): void {
  const request = findFollowRequest(deps.db, requesterId, viewer.id);
  if (!request) throw notFound();
  const at = now();
  const result = deps.db.transaction(() => {
    const existed = findFollow(deps.db, request.account_id, request.target_account_id) !== undefined;
    return { follow: acceptRequest(deps, request, at), created: !existed };
  });
  emitAccepted(deps, request, result.follow, result.created);
}

/** The viewer rejects the pending request of `requesterId`; 404 when there is no such request. */
export function rejectFollowRequest(deps: Deps, viewer: AccountRow, requesterId: string): void {
  const request = findFollowRequest(deps.db, requesterId, viewer.id);
  if (!request) throw notFound();
  deps.db.transaction(() => deleteFollowRequest(deps.db, request.id));
  const ids = { followRequestId: request.id, accountId: request.account_id, targetAccountId: request.target_account_id };
  deps.events.emit('follow_request.deleted', ids);
  deps.events.emit('follow_request.rejected', ids);
}

/**
 * What unlocking an account does (update_credentials with locked=false): its pending follow
 * requests are accepted at once, EXCEPT those from silenced (limited) accounts, which keep waiting
 * for approval (the spec's state table; Mastodon's UpdateAccountService). Remote accounts are not
 * unlocked here, so requests to them (waiting for their Accept) are never touched.
 */
export function acceptPendingRequestsOnUnlock(deps: Deps, accountId: string): void {
  const account = findAccountById(deps.db, accountId);
  if (!account || account.domain !== null || account.locked === 1) return;
  const at = now();
  const accepted = deps.db.transaction(() =>
    pendingRequestsTo(deps.db, account.id)
      .filter((r) => r.silenced === 0)
      .map((r) => {
        const { silenced: _silenced, ...request } = r;
        const existed = findFollow(deps.db, request.account_id, request.target_account_id) !== undefined;
        return { request, follow: acceptRequest(deps, request, at), created: !existed };
      }),
  );
  for (const a of accepted) emitAccepted(deps, a.request, a.follow, a.created);
}

/**
 * POST /api/v1/accounts/:id/remove_from_followers: the account stops following the viewer (its
 * pending request, if any, stays). Not a follower is not an error; an unknown account is 404.
 */
export function removeFromFollowers(deps: Deps, viewer: AccountRow, followerId: string): void {
  const follower = findAccountById(deps.db, followerId);
  if (!follower) throw notFound();
  const removed = deps.db.transaction(() => {
    const follow = findFollow(deps.db, follower.id, viewer.id);
    if (!follow) return null;
    deleteFollow(deps.db, follow.id);
    adjustFollowCounts(deps.db, follower.id, viewer.id, -1);
    return follow;
  });
  if (removed) deps.events.emit('follow.deleted', { followId: removed.id, accountId: follower.id, targetAccountId: viewer.id });
}
