import { presentAccounts } from '../../core/accounts/views.js';
import { authorizeFollowRequest, listFollowRequests, rejectFollowRequest, removeFromFollowers } from '../../core/relationships/follow-requests.js';
import { familiarFollowers, loadRelationship } from '../../core/relationships/relationships.js';
import { toMastodonRelationship } from '../../serializers/relationship.js';
import { notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import { arrayOf, parse, z } from '../params.js';
import type { Routes, UserCtx } from '../routes.js';
import { accountIdParam } from './follows.js';

const idsSchema = z.object({ id: arrayOf(z.string()) });

/** The `:account_id` path parameter of the follow request routes (the requesting account's id). */
function requesterParam(ctx: UserCtx): string {
  const id = ctx.input.account_id;
  if (typeof id !== 'string' || !isId(id)) throw notFound();
  return id;
}

/**
 * Follow requests to the signed-in user (list, authorize, reject: the path names the requesting
 * account, as Mastodon's does), removing a follower, and familiar followers.
 */
export function register(r: Routes): void {
  r.get('/api/v1/follow_requests', 'user', ['read:follows'], (ctx) => {
    const entries = listFollowRequests(ctx.deps, ctx.account.id, parsePage(ctx.input, 40, 80));
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(entries, (e) => e.request_id));
    return presentAccounts(ctx.deps, entries.map((e) => e.account_id));
  });

  r.post('/api/v1/follow_requests/:account_id/authorize', 'user', ['write:follows'], (ctx) => {
    const id = requesterParam(ctx);
    authorizeFollowRequest(ctx.deps, ctx.account, id);
    return toMastodonRelationship(loadRelationship(ctx.deps, ctx.account.id, id));
  });

  r.post('/api/v1/follow_requests/:account_id/reject', 'user', ['write:follows'], (ctx) => {
    const id = requesterParam(ctx);
    rejectFollowRequest(ctx.deps, ctx.account, id);
    return toMastodonRelationship(loadRelationship(ctx.deps, ctx.account.id, id));
  });

  r.post('/api/v1/accounts/:id/remove_from_followers', 'user', ['write:follows'], (ctx) => {
    const id = accountIdParam(ctx);
    removeFromFollowers(ctx.deps, ctx.account, id);
    return toMastodonRelationship(loadRelationship(ctx.deps, ctx.account.id, id));
  });

  r.get('/api/v1/accounts/familiar_followers', 'user', ['read:follows'], (ctx) => {
    const ids = (parse(idsSchema, ctx.input).id ?? []).filter((id) => isId(id));
    const results = familiarFollowers(ctx.deps, ctx.account.id, ids);
    const accounts = new Map(presentAccounts(ctx.deps, [...new Set(results.flatMap((f) => f.accountIds))]).map((a) => [a.id, a]));
    return results.map((f) => ({ id: f.id, accounts: f.accountIds.flatMap((id) => accounts.get(id) ?? []) }));
  });
}
