import { changeStamp } from '../../db/repos/changes.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { timelineState } from './state.js';

/**
 * Whole timeline answers, cached per viewer and request URL while the database does not change.
 *
 * A page is reused only when the database version (rows changed by this process, commits by any
 * other) is the one it was rendered at, so any write anywhere (a post, a favourite, a bookmark, a
 * follow…) makes every cached page stale: correctness never depends on an event being emitted.
 * Pages whose rendering depends on the clock (polls: `expired`) and partial pages (206, feed being
 * rebuilt) are not cached; a maximum age bounds the rest. Reading an idle instance, as one does
 * most of the time, then costs one statement besides authentication.
 */

/** A rendered timeline answer. */
export interface RenderedPage {
  status: number;
  body: Buffer;
  /** The Link header, if any. */
  link: string | null;
}

/** A cached page with the database version it was rendered at. */
export interface PageEntry {
  page: RenderedPage;
  version: string;
  expiresAt: number;
}

const MAX_PAGES = 64;
const MAX_AGE_MS = 60_000;

/** What `cachedPage` renders on a miss: the page, and whether it may be reused. */
export interface Rendering {
  page: RenderedPage;
  cacheable: boolean;
}

/**
 * The page cached under `key` (the viewer and the request URL) if the database is unchanged since
 * it was rendered; otherwise `render()`s it, and keeps it when it may be reused.
 */
export function cachedPage(deps: Deps, key: string, render: () => Rendering): RenderedPage {
  const pages = timelineState(deps).pages;
  const at = now();
  const hit = pages.get(key);
  if (hit && hit.expiresAt > at && hit.version === changeStamp(deps.db)) {
    // Map order is least recently used first.
    pages.delete(key);
    pages.set(key, hit);
    return hit.page;
  }
  const { page, cacheable } = render();
  if (!cacheable) {
    pages.delete(key);
    return page;
  }
  // Read after rendering: a first read may itself write (a feed state row).
  pages.delete(key);
  pages.set(key, { page, version: changeStamp(deps.db), expiresAt: at + MAX_AGE_MS });
  while (pages.size > MAX_PAGES) {
    const oldest = pages.keys().next();
    if (oldest.done) break;
    pages.delete(oldest.value);
  }
  return page;
}
