import { resolveForSearch } from '../../core/federation/resolver.js';
import { searchV2 } from '../../core/search/search.js';
import { ApiError } from '../../util/errors.js';
import { bool, id, int, parse, required, str, z } from '../params.js';
import { limitParam } from '../limit.js';
import type { Routes } from '../routes.js';

const searchParams = z.object({
  q: str(),
  type: str(100),
  resolve: bool(),
  following: bool(),
  account_id: id().optional(),
  exclude_unreviewed: bool(),
  max_id: id().optional(),
  min_id: id().optional(),
  offset: int(),
});

/** Results per category: 20 by default, at most 40. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 40;

/**
 * GET /api/v2/search: accounts, statuses and hashtags. Public, but `resolve` and `offset` need a
 * signed-in user (401 otherwise, as Mastodon answers); GET /api/v1/search is gone (404).
 */
export function register(r: Routes): void {
  r.get('/api/v2/search', 'public', ['read:search'], async (ctx) => {
    const raw = Object.fromEntries(Object.entries(ctx.input).map(([k, v]) => [k, v === '' && k !== 'q' ? undefined : v]));
    const p = parse(searchParams, raw);
    const q = required(p.q, 'q');
    const viewer = ctx.auth?.account?.id ?? null;
    if (viewer === null) {
      if (p.offset !== undefined) throw new ApiError(401, 'Search queries pagination is not supported without authentication');
      if (p.resolve) throw new ApiError(401, 'Search queries that resolve remote resources are not supported without authentication');
    }
    // Federation: a remote URL or handle is fetched first, then found like anything known.
    if (p.resolve) await resolveForSearch(ctx.deps, q);
    const limit = limitParam(ctx.input, DEFAULT_LIMIT, MAX_LIMIT);
    return searchV2(ctx.deps, viewer, {
      q,
      type: p.type ?? null,
      resolve: p.resolve ?? false,
      following: p.following ?? false,
      accountId: p.account_id ?? null,
      excludeUnreviewed: p.exclude_unreviewed ?? false,
      maxId: p.max_id,
      minId: p.min_id,
      limit,
      offset: Math.max(0, p.offset ?? 0),
    });
  });
}
