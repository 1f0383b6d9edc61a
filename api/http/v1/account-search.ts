import { searchAccounts } from '../../core/directory/listing.js';
import { limitParam, offsetParam } from '../limit.js';
import { bool, parse, str, z } from '../params.js';
import type { Routes } from '../routes.js';

const searchParams = z.object({ q: str(), resolve: bool(), following: bool() });

/**
 * `GET /api/v1/accounts/search` (read:accounts). Registered before the accounts area, whose
 * `/api/v1/accounts/:id` would otherwise take `search` for an id.
 */
export function register(r: Routes): void {
  r.get('/api/v1/accounts/search', 'user', ['read:accounts'], (ctx) => {
    const p = parse(searchParams, ctx.input);
    return searchAccounts(ctx.deps, ctx.account.id, {
      q: p.q ?? '',
      limit: limitParam(ctx.input, 40, 80),
      offset: offsetParam(ctx.input),
      resolve: p.resolve ?? false,
      following: p.following ?? false,
    });
  });
}
