import type { Context } from '@fedify/fedify';
import type { DocumentLoader, RemoteDocument } from '@fedify/vocab-runtime';
import type { Deps } from '../core/deps.js';
import { kvGet, kvSet } from '../db/repos/federation.js';
import { now } from '../util/clock.js';
import { INSTANCE_ACTOR_IDENTIFIER } from '../util/uris.js';

/** How long a fetched actor or object document is reused before it is fetched again. */
export const DOCUMENT_TTL_MS = 60 * 60 * 1000;

/** The key under which Fedify caches a remote document (`FederationKvPrefixes.remoteDocument`). */
export function documentCacheKey(url: string): string {
  return JSON.stringify(['_fedify', 'remoteDocument', url]);
}

/**
 * A document loader that signs its GETs as the instance actor (GoToSocial refuses unsigned ones)
 * and shares Fedify's document cache. Fedify caches only its unsigned loader; the signed one it
 * hands to inbox listeners fetches every time, so the sender's actor document was fetched again
 * for each activity (and, for hosts that are gone, every activity failed). Reads hit the cache
 * first; fetched documents are kept for DOCUMENT_TTL_MS.
 */
export async function cachedSignedLoader(ctx: Context<Deps>): Promise<DocumentLoader> {
  // Made on the first miss only: it loads and imports the instance actor's keys.
  let signed: DocumentLoader | null = null;
  const db = ctx.data.db;
  return async (url, options) => {
    const row = kvGet(db, documentCacheKey(url), now());
    if (row) return JSON.parse(row.value) as RemoteDocument;
    signed ??= await ctx.getDocumentLoader({ identifier: INSTANCE_ACTOR_IDENTIFIER });
    const doc = await signed(url, options);
    kvSet(db, documentCacheKey(url), JSON.stringify(doc), now() + DOCUMENT_TTL_MS);
    return doc;
  };
}
