import { listQuotes, revokeQuote, updateInteractionPolicy, type QuotesPage } from '../../core/statuses/quote-actions.js';
import { notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import { parsePage } from '../middleware/pagination.js';
import type { Ctx, Routes } from '../routes.js';

/** A status id of the path; anything that cannot be an id is simply not found. */
function pathId(ctx: Ctx, name: 'id' | 'quoting_status_id'): string {
  const value = String(ctx.req.params[name] ?? '');
  if (!isId(value)) throw notFound();
  return value;
}

/**
 * The Link header of the quotes listing, as Mastodon writes it: `next` with the `max_id` of the
 * last quote of a full page, `prev` with the `since_id` of the first (quote ids, not status ids).
 */
function setQuotesLink(ctx: Ctx, page: QuotesPage): void {
  const make = (key: 'max_id' | 'since_id', value: string) => {
    const url = new URL(ctx.req.originalUrl, ctx.deps.uris.base);
    for (const k of ['max_id', 'min_id', 'since_id', 'access_token']) url.searchParams.delete(k);
    url.searchParams.set(key, value);
    return url.toString();
  };
  const links = [page.next ? `<${make('max_id', page.next)}>; rel="next"` : null, page.prev ? `<${make('since_id', page.prev)}>; rel="prev"` : null];
  const value = links.filter((l): l is string => l !== null).join(', ');
  if (value) ctx.res.setHeader('Link', value);
}

/**
 * The quote methods of a status (Mastodon 4.5): its quotes, revoking one of them, and who may
 * quote it. Posting a quote is `quoted_status_id` on POST /api/v1/statuses (statuses.ts).
 */
export function register(r: Routes): void {
  r.get('/api/v1/statuses/:id/quotes', 'user', ['read:statuses'], (ctx) => {
    const page = listQuotes(ctx.deps, pathId(ctx, 'id'), ctx.account.id, parsePage(ctx.input, 20, 40));
    setQuotesLink(ctx, page);
    return page.statuses;
  });

  r.post('/api/v1/statuses/:id/quotes/:quoting_status_id/revoke', 'user', ['write:statuses'], (ctx) =>
    revokeQuote(ctx.deps, ctx.account.id, pathId(ctx, 'id'), pathId(ctx, 'quoting_status_id')),
  );

  r.put('/api/v1/statuses/:id/interaction_policy', 'user', ['write:statuses'], (ctx) =>
    updateInteractionPolicy(ctx.deps, ctx.account.id, ctx.user, pathId(ctx, 'id'), ctx.input.quote_approval_policy),
  );
}
