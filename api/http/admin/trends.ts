import {
  adminTrendingLinks,
  adminTrendingStatuses,
  adminTrendingTags,
  listPublishers,
  reviewLink,
  reviewPublisher,
  reviewStatus,
  reviewTag,
} from '../../core/admin/trends.js';
import { requirePermission } from '../../core/roles/access.js';
import { PERMISSION } from '../../util/permissions.js';
import { limitParam, offsetParam } from '../limit.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import { setOffsetLinkHeader } from '../offset-links.js';
import type { Routes, UserCtx } from '../routes.js';

/** Mastodon's default and largest page of each admin trend list. */
const TAGS = { default: 10, max: 20 };
const STATUSES = { default: 20, max: 40 };
const LINKS = { default: 10, max: 20 };
const PUBLISHERS = { default: 40, max: 80 };

/** The caller's context once they hold Manage Taxonomies (403 otherwise), checked before anything else. */
function taxonomist(ctx: UserCtx): UserCtx {
  requirePermission(ctx.deps, ctx.user, PERMISSION.manageTaxonomies);
  return ctx;
}

function offsetPage(ctx: UserCtx, sizes: { default: number; max: number }): { offset: number; limit: number } {
  return { offset: offsetParam(ctx.input), limit: limitParam(ctx.input, sizes.default, sizes.max) };
}

function id(ctx: UserCtx): string {
  return String(ctx.req.params.id ?? '');
}

/**
 * Trends moderation (Mastodon's admin/trends methods): the links, statuses and hashtags that trend
 * by the numbers, reviewed or not, offset-paged as the public trends; approve and reject for each,
 * and for link publishers. Manage Taxonomies; `admin:read` to look, `admin:write` to decide.
 */
export function register(r: Routes): void {
  r.get('/api/v1/admin/trends/links', 'user', ['admin:read'], (ctx) => {
    const p = offsetPage(taxonomist(ctx), LINKS);
    const links = adminTrendingLinks(ctx.deps, p.offset, p.limit);
    setOffsetLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, { ...p, count: links.length });
    return links;
  });
  r.get('/api/v1/admin/trends/links/publishers', 'user', ['admin:read'], (ctx) => {
    const page = parsePage(taxonomist(ctx).input, PUBLISHERS.default, PUBLISHERS.max);
    const publishers = listPublishers(ctx.deps, page);
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(publishers, (p) => p.id));
    return publishers;
  });
  r.post('/api/v1/admin/trends/links/publishers/:id/approve', 'user', ['admin:write'], (ctx) => reviewPublisher(taxonomist(ctx).deps, id(ctx), true));
  r.post('/api/v1/admin/trends/links/publishers/:id/reject', 'user', ['admin:write'], (ctx) => reviewPublisher(taxonomist(ctx).deps, id(ctx), false));
  r.post('/api/v1/admin/trends/links/:id/approve', 'user', ['admin:write'], (ctx) => reviewLink(taxonomist(ctx).deps, id(ctx), true));
  r.post('/api/v1/admin/trends/links/:id/reject', 'user', ['admin:write'], (ctx) => reviewLink(taxonomist(ctx).deps, id(ctx), false));

  r.get('/api/v1/admin/trends/statuses', 'user', ['admin:read'], (ctx) => {
    const p = offsetPage(taxonomist(ctx), STATUSES);
    const statuses = adminTrendingStatuses(ctx.deps, ctx.account.id, p.offset, p.limit);
    setOffsetLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, { ...p, count: statuses.length });
    return statuses;
  });
  r.post('/api/v1/admin/trends/statuses/:id/approve', 'user', ['admin:write'], (ctx) => reviewStatus(taxonomist(ctx).deps, id(ctx), true, ctx.account.id));
  r.post('/api/v1/admin/trends/statuses/:id/reject', 'user', ['admin:write'], (ctx) => reviewStatus(taxonomist(ctx).deps, id(ctx), false, ctx.account.id));

  r.get('/api/v1/admin/trends/tags', 'user', ['admin:read'], (ctx) => {
    const p = offsetPage(taxonomist(ctx), TAGS);
    const tags = adminTrendingTags(ctx.deps, p.offset, p.limit);
    setOffsetLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, { ...p, count: tags.length });
    return tags;
  });
  r.post('/api/v1/admin/trends/tags/:id/approve', 'user', ['admin:write'], (ctx) => reviewTag(taxonomist(ctx).deps, id(ctx), true));
  r.post('/api/v1/admin/trends/tags/:id/reject', 'user', ['admin:write'], (ctx) => reviewTag(taxonomist(ctx).deps, id(ctx), false));
}
