import type { Context, Federation, KvKey } from '@fedify/fedify';
import { Temporal } from '@js-temporal/polyfill';
import type { DocumentLoader, RemoteDocument } from '@fedify/vocab-runtime';
import type { Deps } from '../core/deps.js';
import { INSTANCE_ACTOR_IDENTIFIER } from '../util/uris.js';
import { kvStoreFor, type SqliteKvStore } from './kv.js';

/** How long a fetched actor or object document is reused before it is fetched again. */
export const DOCUMENT_TTL_MS = 60 * 60 * 1000;
const DOCUMENT_TTL = Temporal.Duration.from({ milliseconds: DOCUMENT_TTL_MS });

/**
 * Where a fetched document is kept (Fedify's `remoteDocument` prefix): by its URL without the
 * fragment, which is never sent (a key `…/users/mona#main-key` is the actor document).
 */
function documentKey(url: string): KvKey {
  let key = url;
  try {
    const u = new URL(url);
    u.hash = '';
    key = u.href;
  } catch {
    // not a URL: kept as given (the fetch fails anyway)
  }
  return ['_fedify', 'remoteDocument', key];
}

/** The row key of a cached remote document in `federation_kv` (tests remove one to force a fetch). */
export function documentCacheKey(url: string): string {
  return JSON.stringify(documentKey(url));
}

/** Documents already kept by the shared loader (see shareFetchedDocuments): not written twice. */
const kept = new WeakSet<object>();

function keep(kv: SqliteKvStore, url: string, doc: RemoteDocument): void {
  if (kept.has(doc)) return;
  kept.add(doc);
  // A cache: a write that fails only means a later fetch.
  kv.set(documentKey(url), doc, { ttl: DOCUMENT_TTL }).catch(() => {});
}

/**
 * A document loader that signs its GETs as the instance actor (GoToSocial refuses unsigned ones)
 * and shares Fedify's document cache. Fedify caches only its unsigned loader; the signed one it
 * hands to inbox listeners fetches every time, so the sender's actor document was fetched again
 * for each activity (and, for hosts that are gone, every activity failed). Reads hit the cache
 * first (writes still waiting for their commit included); fetched documents are kept for
 * DOCUMENT_TTL_MS.
 */
export async function cachedSignedLoader(ctx: Context<Deps>): Promise<DocumentLoader> {
  // Made on the first miss only: it loads and imports the instance actor's keys.
  let signed: DocumentLoader | null = null;
  const kv = kvStoreFor(ctx.data.db);
  return async (url, options) => {
    const cached = await kv.get<RemoteDocument>(documentKey(url));
    if (cached) return cached;
    signed ??= await ctx.getDocumentLoader({ identifier: INSTANCE_ACTOR_IDENTIFIER });
    const doc = await signed(url, options);
    keep(kv, url, doc);
    return doc;
  };
}

/**
 * Keeps what Fedify's signed loaders fetch in the document cache, so that the inbox listeners'
 * loader (cachedSignedLoader) finds it. A new sender's actor document is fetched first by Fedify
 * itself, to verify the request's signature with the key it holds; the listener then wanted the
 * same document, and fetched it again (a signed GET and a parse, about a tenth of the cost of a
 * first activity from a new server). Fedify's own fetches are not served from the cache: a key
 * that failed verification is always fetched anew. Fedify builds these loaders through
 * `authenticatedDocumentLoaderFactory`, which is wrapped; should a later Fedify rename it, only
 * the second fetch comes back. Returns whether the wrapping took place.
 */
export function shareFetchedDocuments(federation: Federation<unknown>, kv: SqliteKvStore): boolean {
  type Factory = (identity: unknown, options?: unknown) => DocumentLoader;
  const impl = federation as unknown as { authenticatedDocumentLoaderFactory?: Factory };
  const factory = impl.authenticatedDocumentLoaderFactory;
  if (typeof factory !== 'function') return false;
  impl.authenticatedDocumentLoaderFactory = (identity, options) => {
    const loader = factory.call(impl, identity, options);
    return async (url, loaderOptions) => {
      const doc = await loader(url, loaderOptions);
      keep(kv, url, doc);
      return doc;
    };
  };
  return true;
}
