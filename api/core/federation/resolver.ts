import type { Deps } from '../deps.js';

/** Fetches and stores what a URL or `user@host` handle names on another server (search `resolve`). */
export type RemoteResolver = (query: string) => Promise<void>;

const resolvers = new WeakMap<Deps, RemoteResolver>();

/** Installs the instance's remote resolver (federation does, when the instance has an origin). */
export function setRemoteResolver(deps: Deps, resolver: RemoteResolver | null): void {
  if (resolver) resolvers.set(deps, resolver);
  else resolvers.delete(deps);
}

const HANDLE = /^@?[^@\s/]+@[^@\s/]+$/;

/**
 * Before a search with `resolve`: a URL of another server, or a handle on another domain, is
 * fetched and stored (or refreshed when stale) so that the search finds it. Nothing happens
 * without federation, for local URLs and handles, or for other queries; failures are ignored
 * (the search then answers with what is known).
 */
export async function resolveForSearch(deps: Deps, query: string): Promise<void> {
  const resolver = resolvers.get(deps);
  const q = query.trim();
  if (!resolver) return;
  const isUrl = /^https?:\/\//i.test(q);
  if (isUrl && (q === deps.uris.base || q.startsWith(`${deps.uris.base}/`))) return;
  if (!isUrl && (!HANDLE.test(q) || q.toLowerCase().endsWith(`@${deps.uris.domain.toLowerCase()}`))) return;
  await resolver(q).catch(() => undefined);
}
