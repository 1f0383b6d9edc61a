import { linkTimeline, trendingLinks } from '../../core/trends/links.js';
import { trendingStatuses } from '../../core/trends/statuses.js';
import { trendingTags } from '../../core/trends/tags.js';
import { limitParam, offsetParam } from '../limit.js';
import { parsePage, pageCursors } from '../middleware/pagination.js';
import { setOffsetLinkHeader } from '../offset-links.js';
import type { Ctx, Routes } from '../routes.js';
import { sendStatusPage, viewerOf } from './timelines.js';

/** The Mastodon default and largest page of each trend list. */
const TAGS = { default: 10, max: 20 };
const STATUSES = { default: 20, max: 40 };
const LINKS = { default: 10, max: 20 };

function page(ctx: Ctx, sizes: { default: number; max: number }): { offset: number; limit: number } {
  return { offset: offsetParam(ctx.input), limit: limitParam(ctx.input, sizes.default, sizes.max) };
}

function tagsHandler(ctx: Ctx) {
  const p = page(ctx, TAGS);
  const tags = trendingTags(ctx.deps, viewerOf(ctx), p.offset, p.limit);
  setOffsetLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, { ...p, count: tags.length });
  return tags;
}

/**
 * Trends (public, as in Mastodon): hashtags, statuses and links with more activity than others,
 * computed from what this instance has seen (core/trends/activity.ts), `[]` when nothing trends;
 * offset-paged with a Link header. And the link timeline: statuses sharing a trending link.
 */
export function register(r: Routes): void {
  r.get('/api/v1/trends/tags', 'public', [], tagsHandler);
  // The name of the method before Mastodon 3.5, still answered as an alias.
  r.get('/api/v1/trends', 'public', [], tagsHandler);

  r.get('/api/v1/trends/statuses', 'public', [], (ctx) => {
    const p = page(ctx, STATUSES);
    const statuses = trendingStatuses(ctx.deps, viewerOf(ctx), p.offset, p.limit);
    setOffsetLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, { ...p, count: statuses.length });
    return statuses;
  });

  r.get('/api/v1/trends/links', 'public', [], (ctx) => {
    const p = page(ctx, LINKS);
    const links = trendingLinks(ctx.deps, p.offset, p.limit);
    setOffsetLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, { ...p, count: links.length });
    return links;
  });

  r.get('/api/v1/timelines/link', 'public', ['read:statuses'], (ctx) => {
    const viewer = viewerOf(ctx);
    const url = typeof ctx.input.url === 'string' ? ctx.input.url.trim() : '';
    // Checked before the page cache: a link that stops trending answers 404 at once.
    const first = linkTimeline(ctx.deps, viewer, url, parsePage(ctx.input));
    sendStatusPage(ctx, viewer, () => ({ status: 200, ids: first, cursors: pageCursors(first, (id) => id) }));
  });
}
