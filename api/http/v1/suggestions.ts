import { dismissSuggestion, presentSuggestedAccounts, presentSuggestions } from '../../core/suggestions/suggest.js';
import { limitParam } from '../limit.js';
import type { Routes } from '../routes.js';

/** Mastodon's default number of suggestions and its most (twice the default). */
const DEFAULT_LIMIT = 40;
const MAX_LIMIT = 80;

/**
 * Follow suggestions: v1 (accounts) and v2 (Suggestion entities with their sources), and
 * dismissing one. Reading needs read:accounts; dismissing takes read:accounts as documented, or
 * write:accounts, which newer Mastodon asks for.
 */
export function register(r: Routes): void {
  r.get('/api/v1/suggestions', 'user', ['read:accounts'], (ctx) =>
    presentSuggestedAccounts(ctx.deps, ctx.account.id, limitParam(ctx.input, DEFAULT_LIMIT, MAX_LIMIT)),
  );

  r.get('/api/v2/suggestions', 'user', ['read:accounts'], (ctx) =>
    presentSuggestions(ctx.deps, ctx.account.id, limitParam(ctx.input, DEFAULT_LIMIT, MAX_LIMIT)),
  );

  r.delete('/api/v1/suggestions/:account_id', 'user', ['write:accounts'], (ctx) => {
    dismissSuggestion(ctx.deps, ctx.account.id, String(ctx.req.params.account_id ?? ''));
    return {};
  });
}
