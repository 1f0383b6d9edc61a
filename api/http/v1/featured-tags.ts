import {
  accountFeaturedTags,
  featuredTagSuggestions,
  featureTag,
  listOwnFeaturedTags,
  unfeatureFeaturedTag,
} from '../../core/tags/featured.js';
import { parse, required, str, z } from '../params.js';
import type { Routes } from '../routes.js';

const featureParams = z.object({ name: str() });

/**
 * Featured tags: the signed-in account's list (read:accounts), featuring and unfeaturing
 * (write:accounts), suggestions of tags to feature, and any account's featured tags (public).
 */
export function register(r: Routes): void {
  r.get('/api/v1/featured_tags', 'user', ['read:accounts'], (ctx) => listOwnFeaturedTags(ctx.deps, ctx.account));

  r.post('/api/v1/featured_tags', 'user', ['write:accounts'], (ctx) => {
    const name = required(parse(featureParams, ctx.input).name, 'name');
    return featureTag(ctx.deps, ctx.account, name);
  });

  r.get('/api/v1/featured_tags/suggestions', 'user', ['read:accounts'], (ctx) => featuredTagSuggestions(ctx.deps, ctx.account.id));

  r.delete('/api/v1/featured_tags/:id', 'user', ['write:accounts'], (ctx) => {
    unfeatureFeaturedTag(ctx.deps, ctx.account.id, String(ctx.req.params.id ?? ''));
    return {};
  });

  // Mastodon checks no scope here: any valid token (or none) may read a profile's featured tags.
  r.get('/api/v1/accounts/:id/featured_tags', 'public', [], (ctx) => accountFeaturedTags(ctx.deps, String(ctx.req.params.id ?? '')));
}
