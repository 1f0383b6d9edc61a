import { addCollectionItem, removeCollectionItem, revokeCollectionItem } from '../../core/collections/items.js';
import {
  createCollection,
  deleteCollection,
  listAccountCollections,
  listCollectionsFeaturing,
  showCollection,
  updateCollection,
  type CollectionInput,
} from '../../core/collections/manage.js';
import { limitParam, offsetParam } from '../limit.js';
import { setOffsetLinkHeader } from '../offset-links.js';
import { arrayOf, bool, id, parse, str, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';

const attributes = {
  name: str(),
  description: str(),
  language: str(),
  tag_name: str(),
  sensitive: bool(),
  discoverable: bool(),
};
const createSchema = z.object({ ...attributes, account_ids: arrayOf(id()) });
const updateSchema = z.object(attributes);
const itemSchema = z.object({ account_id: str() });

function input(p: z.infer<typeof updateSchema>): CollectionInput {
  return { name: p.name, description: p.description, language: p.language, tag_name: p.tag_name, sensitive: p.sensitive, discoverable: p.discoverable };
}

function param(ctx: Ctx, name: string): string {
  return String(ctx.req.params[name] ?? '');
}

/** Mastodon's default and largest page of collections. */
const PAGE = { default: 40, max: 80 };

/**
 * Collections (Mastodon 4.6): create, show, update and delete one's collections of recommended
 * accounts, list an account's collections and the ones the viewer is featured in (offset-paged,
 * Link header), add and remove items, withdraw from someone else's. Served under `/api/v1` and
 * under the `/api/v1_alpha` prefix Mastodon keeps for the apps of its first release.
 */
export function register(r: Routes): void {
  for (const prefix of ['/api/v1', '/api/v1_alpha']) {
    r.post(`${prefix}/collections`, 'user', ['write:collections'], (ctx) => {
      const p = parse(createSchema, ctx.input);
      return { collection: createCollection(ctx.deps, ctx.account, input(p), p.account_ids ?? []) };
    });

    r.get(`${prefix}/collections/:id`, 'public', ['read:collections'], (ctx) => showCollection(ctx.deps, param(ctx, 'id'), ctx.auth?.account?.id ?? null));

    // Rails routes an update by PATCH and by PUT (masto.js uses PUT).
    for (const method of ['patch', 'put'] as const) {
      r[method](`${prefix}/collections/:id`, 'user', ['write:collections'], (ctx) => ({
        collection: updateCollection(ctx.deps, ctx.account.id, param(ctx, 'id'), input(parse(updateSchema, ctx.input))),
      }));
    }

    r.delete(`${prefix}/collections/:id`, 'user', ['write:collections'], (ctx) => {
      deleteCollection(ctx.deps, ctx.account.id, param(ctx, 'id'));
      return {};
    });

    r.get(`${prefix}/accounts/:account_id/collections`, 'public', ['read:collections'], (ctx) => {
      const page = { offset: offsetParam(ctx.input), limit: limitParam(ctx.input, PAGE.default, PAGE.max) };
      const collections = listAccountCollections(ctx.deps, param(ctx, 'account_id'), ctx.auth?.account?.id ?? null, page.offset, page.limit);
      setOffsetLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, { ...page, count: collections.length });
      return { collections };
    });

    r.get(`${prefix}/accounts/:account_id/in_collections`, 'user', ['read:collections'], (ctx) => {
      const page = { offset: offsetParam(ctx.input), limit: limitParam(ctx.input, PAGE.default, PAGE.max) };
      const collections = listCollectionsFeaturing(ctx.deps, param(ctx, 'account_id'), ctx.account.id, page.offset, page.limit);
      setOffsetLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, { ...page, count: collections.length });
      return { collections };
    });

    r.post(`${prefix}/collections/:collection_id/items`, 'user', ['write:collections'], (ctx) => ({
      collection_item: addCollectionItem(ctx.deps, ctx.account.id, param(ctx, 'collection_id'), parse(itemSchema, ctx.input).account_id),
    }));

    r.delete(`${prefix}/collections/:collection_id/items/:id`, 'user', ['write:collections'], (ctx) => {
      removeCollectionItem(ctx.deps, ctx.account.id, param(ctx, 'collection_id'), param(ctx, 'id'));
      return {};
    });

    r.post(`${prefix}/collections/:collection_id/items/:id/revoke`, 'user', ['write:collections'], (ctx) => {
      revokeCollectionItem(ctx.deps, ctx.account.id, param(ctx, 'collection_id'), param(ctx, 'id'));
      return {};
    });
  }
}
