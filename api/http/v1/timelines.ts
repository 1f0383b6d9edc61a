import { readHomeTimeline } from '../../core/timelines/home.js';
import { accountStatuses, publicTimeline, tagTimeline } from '../../core/timelines/listing.js';
import { cachedPage, type Rendering } from '../../core/timelines/page-cache.js';
import { renderStatusArray, type LiveStatusRow } from '../../core/timelines/render.js';
import { arrayOf, bool, parse, str, z } from '../params.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import type { Ctx, Routes } from '../routes.js';

/** The viewer's account id on a route that a token may or may not accompany. */
export function viewerOf(ctx: Ctx): string | null {
  return ctx.auth?.account?.id ?? null;
}

/** What a timeline handler computes on a cache miss. */
export interface StatusPage {
  status: number;
  ids: readonly string[];
  /** Link header cursors: the status ids, or the favourite/bookmark row ids. */
  cursors: { first: string; last: string } | null;
  /** Counters and flags, when the query that chose the ids read them already. */
  live?: readonly LiveStatusRow[] | undefined;
}

function hasBody(ctx: Ctx): boolean {
  const body: unknown = ctx.req.body;
  return typeof body === 'object' && body !== null && Object.keys(body).length > 0;
}

/**
 * Answers a timeline: statuses rendered as JSON text by the timeline cache, and the Link header.
 * The whole answer is cached per viewer and URL while the database stays unchanged (see
 * core/timelines/page-cache.ts); `compute` (parameters, queries) runs only on a miss.
 */
export function sendStatusPage(ctx: Ctx, viewerId: string | null, compute: () => StatusPage): void {
  const render = (): Rendering => {
    const result = compute();
    const { json, timeDependent } = renderStatusArray(ctx.deps, result.ids, viewerId, result.live);
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, result.cursors);
    const link = ctx.res.getHeader('Link');
    return {
      page: { status: result.status, body: Buffer.from(json), link: typeof link === 'string' ? link : null },
      cacheable: result.status === 200 && !timeDependent,
    };
  };
  // Parameters in a body (unusual for GET) are not part of the key: such requests are not cached.
  const page = hasBody(ctx) ? render().page : cachedPage(ctx.deps, `${viewerId ?? '-'} ${ctx.req.originalUrl}`, render);
  // Written as is: the text is JSON already.
  ctx.res.statusCode = page.status;
  if (page.link !== null) ctx.res.setHeader('Link', page.link);
  ctx.res.setHeader('Content-Type', 'application/json; charset=utf-8');
  ctx.res.setHeader('Content-Length', page.body.length);
  ctx.res.end(page.body);
}

const publicFilters = z.object({ local: bool(), remote: bool(), only_media: bool() });

const tagParams = z.object({ any: arrayOf(z.string()), all: arrayOf(z.string()), none: arrayOf(z.string()) });

const accountStatusesParams = z.object({
  pinned: bool(),
  only_media: bool(),
  exclude_replies: bool(),
  exclude_reblogs: bool(),
  tagged: str(200),
});

/**
 * Timelines: home (materialised; 206 while it is rebuilt), public, hashtag, and an account's
 * statuses. All page with max_id, since_id, min_id and limit (default 20, at most 40) and set the
 * Link header. (The list timeline is served in lists.ts, from core/lists.)
 */
export function register(r: Routes): void {
  r.get('/api/v1/timelines/home', 'user', ['read:statuses'], (ctx) =>
    sendStatusPage(ctx, ctx.account.id, () => {
      const home = readHomeTimeline(ctx.deps, ctx.account.id, parsePage(ctx.input));
      return { status: home.partial ? 206 : 200, ids: home.ids, cursors: pageCursors(home.pageIds, (id) => id), live: home.live };
    }),
  );

  r.get('/api/v1/timelines/public', 'public', ['read:statuses'], (ctx) => {
    const viewer = viewerOf(ctx);
    sendStatusPage(ctx, viewer, () => {
      const page = parsePage(ctx.input);
      const f = parse(publicFilters, ctx.input);
      const ids = publicTimeline(ctx.deps, viewer, { local: f.local ?? false, remote: f.remote ?? false, onlyMedia: f.only_media ?? false }, page);
      return { status: 200, ids, cursors: pageCursors(ids, (id) => id) };
    });
  });

  r.get('/api/v1/timelines/tag/:hashtag', 'public', ['read:statuses'], (ctx) => {
    const viewer = viewerOf(ctx);
    sendStatusPage(ctx, viewer, () => {
      const page = parsePage(ctx.input);
      const f = parse(publicFilters, ctx.input);
      const t = parse(tagParams, ctx.input);
      const ids = tagTimeline(
        ctx.deps,
        viewer,
        String(ctx.req.params.hashtag ?? ''),
        { any: t.any ?? [], all: t.all ?? [], none: t.none ?? [] },
        { local: f.local ?? false, remote: f.remote ?? false, onlyMedia: f.only_media ?? false },
        page,
      );
      return { status: 200, ids, cursors: pageCursors(ids, (id) => id) };
    });
  });

  r.get('/api/v1/accounts/:id/statuses', 'public', ['read:statuses'], (ctx) => {
    const viewer = viewerOf(ctx);
    sendStatusPage(ctx, viewer, () => {
      const page = parsePage(ctx.input);
      const f = parse(accountStatusesParams, ctx.input);
      const filters = {
        pinned: f.pinned ?? false,
        onlyMedia: f.only_media ?? false,
        excludeReplies: f.exclude_replies ?? false,
        excludeReblogs: f.exclude_reblogs ?? false,
        tagged: f.tagged ? f.tagged : null,
      };
      const ids = accountStatuses(ctx.deps, viewer, String(ctx.req.params.id ?? ''), filters, page);
      return { status: 200, ids, cursors: pageCursors(ids, (id) => id) };
    });
  });
}
