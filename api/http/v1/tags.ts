import { featureTagByName, unfeatureTagByName } from '../../core/tags/featured.js';
import { followTag, getTag, listFollowedTags, unfollowTag } from '../../core/tags/tags.js';
import { parsePage, setLinkHeader } from '../middleware/pagination.js';
import type { Ctx, Routes } from '../routes.js';

/** Mastodon's default page of followed tags and its largest. */
const FOLLOWED_DEFAULT = 100;
const FOLLOWED_MAX = 200;

function tagName(ctx: Ctx): string {
  return String(ctx.req.params.id ?? '');
}

/**
 * Hashtags: one tag by name (public; `following`/`featuring` for a signed-in viewer), following
 * and unfollowing (write:follows), featuring and unfeaturing on the profile (write:accounts), and
 * the followed tags, paged by Link header (read:follows).
 */
export function register(r: Routes): void {
  r.get('/api/v1/followed_tags', 'user', ['read:follows'], (ctx) => {
    const page = parsePage(ctx.input, FOLLOWED_DEFAULT, FOLLOWED_MAX);
    const { tags, cursors } = listFollowedTags(ctx.deps, ctx.account.id, page);
    const first = cursors[0];
    const last = cursors[cursors.length - 1];
    // Mastodon pages followed tags back with since_id.
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, first !== undefined && last !== undefined ? { first, last } : null, 'since_id');
    return tags;
  });

  r.get('/api/v1/tags/:id', 'public', [], (ctx) => getTag(ctx.deps, tagName(ctx), ctx.auth?.account?.id ?? null));

  r.post('/api/v1/tags/:id/follow', 'user', ['write:follows'], (ctx) => followTag(ctx.deps, ctx.account.id, tagName(ctx)));

  r.post('/api/v1/tags/:id/unfollow', 'user', ['write:follows'], (ctx) => unfollowTag(ctx.deps, ctx.account.id, tagName(ctx)));

  r.post('/api/v1/tags/:id/feature', 'user', ['write:accounts'], (ctx) => featureTagByName(ctx.deps, ctx.account, tagName(ctx)));

  r.post('/api/v1/tags/:id/unfeature', 'user', ['write:accounts'], (ctx) => unfeatureTagByName(ctx.deps, ctx.account, tagName(ctx)));
}
