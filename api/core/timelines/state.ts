import type { Db } from '../../db/connection.js';
import type { Deps } from '../deps.js';
import type { PageEntry } from './page-cache.js';
import { RenderedStatusCache } from './status-cache.js';

/** Per-instance timeline state: the rendered-status and page caches, and the home feed rebuilds under way. */
export interface TimelineState {
  cache: RenderedStatusCache;
  /** Whole rendered pages (see page-cache.ts), by viewer and URL. */
  pages: Map<string, PageEntry>;
  /** Rebuilds running in this process, by account id. */
  rebuilding: Map<string, Promise<void>>;
}

/** Cache bounds: enough for many pages of many users, small in memory (a few KiB per status). */
const MAX_ENTRIES = 4000;
/** A bound on staleness for account changes that emit no event (e.g. an emoji or role change). */
const MAX_AGE_MS = 60_000;

// Keyed by the database handle: one state per running instance (tests run several in a process).
const states = new WeakMap<Db, TimelineState>();

/** The timeline state of an instance, created on first use. */
export function timelineState(deps: Deps): TimelineState {
  let state = states.get(deps.db);
  if (!state) {
    state = { cache: new RenderedStatusCache(MAX_ENTRIES, MAX_AGE_MS), pages: new Map(), rebuilding: new Map() };
    states.set(deps.db, state);
  }
  return state;
}
