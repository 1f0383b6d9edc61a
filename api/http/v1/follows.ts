import { presentAccounts } from '../../core/accounts/views.js';
import { followAccount, unfollowAccount } from '../../core/relationships/follows.js';
import { listFollows, loadRelationship, relationshipsFor } from '../../core/relationships/relationships.js';
import { toMastodonRelationship } from '../../serializers/relationship.js';
import { notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import { arrayOf, bool, parse, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';

const followSchema = z.object({
  reblogs: bool(),
  notify: bool(),
  languages: arrayOf(z.string()),
});

const relationshipsSchema = z.object({
  id: arrayOf(z.string()),
  with_suspended: bool(),
});

/** The `:id` path parameter; an id that cannot exist is 404, as Rails' find answers. */
export function accountIdParam(ctx: Ctx): string {
  const id = ctx.input.id;
  if (typeof id !== 'string' || !isId(id)) throw notFound();
  return id;
}

function followList(direction: 'followers' | 'following') {
  return (ctx: Ctx) => {
    const page = parsePage(ctx.input, 40, 80);
    const entries = listFollows(ctx.deps, accountIdParam(ctx), direction, page, ctx.auth?.account?.id ?? null);
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(entries, (e) => e.follow_id));
    return presentAccounts(ctx.deps, entries.map((e) => e.account_id));
  };
}

/**
 * Following between accounts: follow (or change the follow's options), unfollow, the viewer's
 * relationships, and an account's followers and following lists (paged by follow, Link headers).
 */
export function register(r: Routes): void {
  r.get('/api/v1/accounts/relationships', 'user', ['read:follows'], (ctx) => {
    const p = parse(relationshipsSchema, ctx.input);
    // Ids that cannot exist are simply not found, like unknown ones.
    const ids = (p.id ?? []).filter((id) => isId(id));
    return relationshipsFor(ctx.deps, ctx.account.id, ids, p.with_suspended ?? false).map(toMastodonRelationship);
  });

  r.post('/api/v1/accounts/:id/follow', 'user', ['write:follows'], (ctx) => {
    const p = parse(followSchema, ctx.input);
    const id = accountIdParam(ctx);
    followAccount(ctx.deps, ctx.account, id, { reblogs: p.reblogs, notify: p.notify, languages: p.languages });
    return toMastodonRelationship(loadRelationship(ctx.deps, ctx.account.id, id));
  });

  r.post('/api/v1/accounts/:id/unfollow', 'user', ['write:follows'], (ctx) => {
    const id = accountIdParam(ctx);
    unfollowAccount(ctx.deps, ctx.account, id);
    return toMastodonRelationship(loadRelationship(ctx.deps, ctx.account.id, id));
  });

  r.get('/api/v1/accounts/:id/followers', 'public', ['read:accounts'], followList('followers'));
  r.get('/api/v1/accounts/:id/following', 'public', ['read:accounts'], followList('following'));
}
