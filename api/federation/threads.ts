import type { Federation } from '@fedify/fedify';
import type { Deps } from '../core/deps.js';
import { statusById } from '../core/federation/local.js';
import { resolveRemote } from './resolve.js';

/** How many ancestors up a thread are fetched for one incoming reply (Mastodon stops early too). */
export const THREAD_FETCH_DEPTH = 5;

/**
 * Thread resolution: a remote reply whose parent this server has never seen gets its parent
 * fetched (signed GET, as a search with `resolve` does), and so on up the thread, at most
 * THREAD_FETCH_DEPTH statuses per reply. A fetched parent is stored with createRemoteStatus, which
 * threads the waiting replies under it. Returns the stop function (it waits for fetches in hand).
 */
export function installThreadResolution(deps: Deps, federation: Federation<Deps>): () => Promise<void> {
  /** Parent uris being fetched, with how far up the thread they are. */
  const depthOf = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  const off = deps.events.on('status.created', ({ statusId }) => {
    const status = statusById(deps, statusId);
    // Only remote replies whose parent is unknown: a local reply always names a stored parent.
    if (stopped || !status || status.local === 1 || status.in_reply_to_id !== null || !status.in_reply_to_uri || status.reblog_of_id !== null) return;
    const parentUri = status.in_reply_to_uri;
    // Our own statuses are never fetched from ourselves: a reply to one that is gone stays unthreaded.
    if (!URL.canParse(parentUri) || new URL(parentUri).origin === new URL(deps.uris.base).origin || depthOf.has(parentUri)) return;
    const depth = (status.uri ? depthOf.get(status.uri) : undefined) ?? 0;
    if (depth >= THREAD_FETCH_DEPTH) return;
    depthOf.set(parentUri, depth + 1);
    const job = resolveRemote(federation, deps, parentUri)
      .catch((err: unknown) => console.error(`federation: cannot fetch the parent ${parentUri}`, err))
      .finally(() => {
        depthOf.delete(parentUri);
        inFlight.delete(job);
      });
    inFlight.add(job);
  });
  return async () => {
    stopped = true;
    off();
    await Promise.all([...inFlight]);
  };
}
