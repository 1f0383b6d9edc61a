import { liveStatusState, type LiveStatusRow } from '../../db/repos/timelines.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { filterResultsForIds, loadActiveFilters } from '../filters/active.js';
import { quotePermission } from '../statuses/quote-policy.js';
import { presentStatuses } from '../statuses/views.js';
import type { CachedStatus } from './status-cache.js';
import { timelineState } from './state.js';

export type { LiveStatusRow } from '../../db/repos/timelines.js';

/** Live values of one request, by status id (a reblogged status gets its own entry). */
interface LiveValues {
  replies: number;
  reblogs: number;
  favourites: number;
  f: number;
  r: number;
  b: number;
  p: number;
  m: number;
}
type Live = Map<string, LiveValues>;

function liveMap(rows: readonly LiveStatusRow[]): Live {
  const live: Live = new Map();
  for (const row of rows) {
    live.set(row.id, { replies: row.replies_count, reblogs: row.reblogs_count, favourites: row.favourites_count, f: row.f, r: row.r, b: row.b, p: row.p, m: row.m });
    if (row.inner_id !== null) {
      live.set(row.inner_id, {
        replies: row.inner_replies_count ?? 0,
        reblogs: row.inner_reblogs_count ?? 0,
        favourites: row.inner_favourites_count ?? 0,
        f: row.f,
        r: row.r,
        b: row.b,
        p: row.p,
        m: row.m,
      });
    }
  }
  return live;
}

/**
 * The viewer's flags as `toMastodonStatus` writes them, for the status `flagsOf` (a reblog reports
 * the flags of the reblogged status, without `pinned`); '' for an anonymous viewer.
 */
function flagsJson(flagsOf: CachedStatus, live: Live, viewerId: string | null, isWrapper: boolean, filtered: string): string {
  if (viewerId === null) return '';
  const row = live.get(flagsOf.id);
  const on = (v: number | undefined) => (v === 1 ? 'true' : 'false');
  let out = `,"favourited":${on(row?.f)},"reblogged":${on(row?.r)},"muted":${on(row?.m)},"bookmarked":${on(row?.b)}`;
  // `pinned` appears only where the viewer could pin: their own status, not a reblog, not direct.
  if (!isWrapper && flagsOf.accountId === viewerId && flagsOf.visibility !== 'direct') out += `,"pinned":${on(row?.p)}`;
  return `${out},"filtered":${filtered}`;
}

/** The viewer's filter results by status id, as JSON texts (absent: "[]"). */
type Filtered = ReadonlyMap<string, string>;

const NO_RELATION = { followsAuthor: false, followedByAuthor: false };

/** Whether the viewer may quote a cached status (QuoteApproval's `current_user`; follows never matter here). */
function quoteUser(entry: CachedStatus, viewerId: string | null): string {
  return quotePermission({ account_id: entry.accountId, visibility: entry.visibility, reblog_of_id: entry.reblogOfId }, entry.quotePolicy, viewerId, NO_RELATION);
}

function compose(entry: CachedStatus, inner: CachedStatus | undefined, live: Live, viewerId: string | null, filtered: Filtered): string {
  const row = live.get(entry.id);
  let out = entry.parts[0] ?? '';
  for (let i = 0; i < entry.slots.length; i++) {
    const slot = entry.slots[i];
    if (slot === 'replies') out += row?.replies ?? 0;
    else if (slot === 'reblogs') out += row?.reblogs ?? 0;
    else if (slot === 'favourites') out += row?.favourites ?? 0;
    else if (slot === 'quote_user') out += JSON.stringify(quoteUser(entry, viewerId));
    else out += inner ? compose(inner, undefined, live, viewerId, filtered) : 'null';
    out += entry.parts[i + 1] ?? '';
  }
  return `${out}${flagsJson(inner ?? entry, live, viewerId, inner !== undefined, filtered.get(entry.id) ?? '[]')}}`;
}

/**
 * Statuses as JSON texts, in the order of `ids`, skipping missing ones, exactly as
 * `JSON.stringify(presentStatuses(deps, ids, viewerId))` would write each of them, but served from
 * the rendered-status cache: only statuses not cached yet are loaded (in one batch, anonymous
 * rendering), then one query brings counters and the viewer's flags (or `preloaded` has them
 * already, from the query that chose the ids). Callers select visible ids.
 */
export function renderStatusesJson(deps: Deps, ids: readonly string[], viewerId: string | null, preloaded?: readonly LiveStatusRow[]): string[] {
  return renderStatuses(deps, ids, viewerId, preloaded).texts;
}

/** `renderStatusesJson`, also saying whether a status was rendered live (its JSON depends on the clock). */
export function renderStatuses(
  deps: Deps,
  ids: readonly string[],
  viewerId: string | null,
  preloaded?: readonly LiveStatusRow[],
): { texts: string[]; timeDependent: boolean } {
  const { cache } = timelineState(deps);
  const at = now();
  const found = new Map<string, CachedStatus>();
  const missing: string[] = [];
  for (const id of ids) {
    const entry = cache.get(id, at);
    // A reblog is usable only with its reblogged status cached too.
    const inner = entry?.reblogOfId ? cache.get(entry.reblogOfId, at) : undefined;
    if (entry && (entry.reblogOfId === null || inner)) {
      found.set(id, entry);
      if (inner) found.set(inner.id, inner);
    } else {
      missing.push(id);
    }
  }
  if (missing.length > 0) {
    for (const status of presentStatuses(deps, missing, null)) {
      const entry = cache.store(status, at);
      found.set(entry.id, entry);
      if (entry.reblogOfId) {
        const inner = cache.get(entry.reblogOfId, at);
        if (inner) found.set(inner.id, inner);
      }
    }
  }

  // Statuses with polls are rendered per viewer; the rest are composed from the cache.
  const liveIds = ids.filter((id) => found.get(id)?.live);
  const fresh = new Map<string, string>();
  if (liveIds.length > 0) for (const s of presentStatuses(deps, liveIds, viewerId)) fresh.set(s.id, JSON.stringify(s));
  let live: Live;
  if (preloaded) {
    live = liveMap(preloaded);
  } else {
    // Reblogged statuses come with their reblog's row.
    const shown = ids.filter((id) => found.get(id)?.live === false);
    live = liveMap(shown.length > 0 ? liveStatusState(deps.db, shown, viewerId) : []);
  }

  // `filtered` is per viewer: computed for the whole page at once (live ones have it already).
  const filtered = new Map<string, string>();
  const composed = ids.filter((id) => found.get(id)?.live === false);
  for (const [id, results] of filterResultsForIds(deps, viewerId, null, composed)) filtered.set(id, JSON.stringify(results));

  const out: string[] = [];
  for (const id of ids) {
    const entry = found.get(id);
    if (!entry) continue;
    if (entry.live) {
      const text = fresh.get(id);
      if (text !== undefined) out.push(text);
      continue;
    }
    const inner = entry.reblogOfId ? found.get(entry.reblogOfId) : undefined;
    out.push(compose(entry, inner, live, viewerId, filtered));
  }
  return { texts: out, timeDependent: liveIds.length > 0 || filtersExpire(deps, viewerId) };
}

/** True when one of the viewer's active filters has an end: a page rendered now goes stale then. */
function filtersExpire(deps: Deps, viewerId: string | null): boolean {
  return viewerId !== null && loadActiveFilters(deps, viewerId).some((f) => f.row.expires_at !== null);
}

/** A JSON array text of statuses (see `renderStatusesJson`), and whether it depends on the clock. */
export function renderStatusArray(
  deps: Deps,
  ids: readonly string[],
  viewerId: string | null,
  preloaded?: readonly LiveStatusRow[],
): { json: string; timeDependent: boolean } {
  const { texts, timeDependent } = renderStatuses(deps, ids, viewerId, preloaded);
  return { json: `[${texts.join(',')}]`, timeDependent };
}
