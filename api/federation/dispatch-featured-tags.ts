import type { Federation } from '@fedify/fedify';
import { Hashtag } from '@fedify/vocab';
import type { Deps } from '../core/deps.js';
import { findLocalActor } from '../core/federation/local.js';
import { listOwnFeaturedTags } from '../core/tags/featured.js';

/**
 * Serves a local actor's `featuredTags` collection (`/users/{identifier}/collections/tags`, the
 * URL its actor document publishes): a Collection of the Hashtags it features, each as Mastodon
 * writes them, `{type: Hashtag, href: <the account's statuses with the tag>, name: '#tag'}`.
 *
 * Changes reach followers as Add/Remove of the Hashtag, as Mastodon sends them
 * (outbound-featured-tags.ts); remote servers read this collection when they sync the account.
 */
export function registerFeaturedTagsDispatcher(federation: Federation<Deps>): void {
  federation
    .setFeaturedTagsDispatcher('/users/{identifier}/collections/tags', (ctx, identifier) => {
      const account = findLocalActor(ctx.data, identifier);
      if (!account) return null;
      const items = listOwnFeaturedTags(ctx.data, account).map((t) => new Hashtag({ href: new URL(t.url), name: `#${t.name}` }));
      return { items };
    })
    .setCounter((ctx, identifier) => {
      const account = findLocalActor(ctx.data, identifier);
      return account ? listOwnFeaturedTags(ctx.data, account).length : null;
    });
}
