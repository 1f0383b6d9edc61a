import type { PageBounds } from '../../db/paging.js';
import { findAccountById } from '../../db/repos/accounts.js';
import {
  accountStatusIds,
  findTagsByNormalizedNames,
  markedStatusIds,
  publicTimelineIds,
  tagTimelineIds,
  type AccountStatusFilters,
  type CursorRow,
  type PublicFilters,
} from '../../db/repos/timelines.js';
import { notFound } from '../../util/errors.js';
import { normalizeTagName } from '../../util/text/index.js';
import type { Deps } from '../deps.js';
import { excluding } from '../relationships/exclusions.js';
import { statusVisibilitySql } from '../statuses/visibility.js';

/** Tags taken from each of any[], all[] and none[] (Mastodon's LIMIT_PER_MODE). */
export const TAGS_PER_MODE = 4;

/**
 * `local` and `remote` as Mastodon's PublicFeed reads them: each narrows the timeline only without
 * the other (`local_only?` is local and not remote), so both together select everything.
 */
function origin(filters: PublicFilters): PublicFilters {
  return filters.local && filters.remote ? { ...filters, local: false, remote: false } : filters;
}

/**
 * The public timeline (GET /api/v1/timelines/public): public statuses, no boosts, no replies to
 * others; `local` or `remote` narrows it to one origin (both at once: everything).
 */
export function publicTimeline(deps: Deps, viewerId: string | null, filters: PublicFilters, page: PageBounds): string[] {
  return publicTimelineIds(deps.db, excluding(statusVisibilitySql, 'timeline'), viewerId, origin(filters), page);
}

/** Extra tag names of a tag timeline request. */
export interface TagQuery {
  any: readonly string[];
  all: readonly string[];
  none: readonly string[];
}

/** A hashtag as written in a path or parameter, without '#', normalized. */
export function normalizeHashtag(name: string): string {
  return normalizeTagName(name.trim().replace(/^#/, ''));
}

/**
 * The hashtag timeline (GET /api/v1/timelines/tag/:hashtag): public statuses with the tag (or any
 * of `any`), every tag of `all` and none of `none`. An unknown hashtag is 404 as Mastodon
 * documents; an unknown tag in `all` means nothing can match.
 */
export function tagTimeline(deps: Deps, viewerId: string | null, hashtag: string, q: TagQuery, filters: PublicFilters, page: PageBounds): string[] {
  const main = normalizeHashtag(hashtag);
  const pick = (names: readonly string[]) => [...new Set(names.slice(0, TAGS_PER_MODE).map(normalizeHashtag).filter(Boolean))];
  const any = pick(q.any);
  const all = pick(q.all);
  const none = pick(q.none);
  const tags = findTagsByNormalizedNames(deps.db, [main, ...any, ...all, ...none]);
  const mainTag = tags.get(main);
  if (!mainTag) throw notFound();
  if (all.some((name) => !tags.has(name))) return [];
  const ids = (names: string[]) => names.map((n) => tags.get(n)?.id).filter((id): id is string => id !== undefined);
  return tagTimelineIds(
    deps.db,
    excluding(statusVisibilitySql, 'timeline'),
    viewerId,
    { any: [...new Set([mainTag.id, ...ids(any)])], all: ids(all), none: ids(none) },
    origin(filters),
    page,
  );
}

/**
 * An account's statuses (GET /api/v1/accounts/:id/statuses) as the viewer may see them, with
 * Mastodon's filters. Unknown account: 404; a suspended one has none to show.
 */
export function accountStatuses(deps: Deps, viewerId: string | null, accountId: string, filters: AccountStatusFilters, page: PageBounds): string[] {
  const account = findAccountById(deps.db, accountId);
  if (!account) throw notFound();
  if (account.suspended_at !== null) return [];
  const tagged = filters.tagged === null ? null : normalizeHashtag(filters.tagged);
  return accountStatusIds(deps.db, excluding(statusVisibilitySql, 'profile'), viewerId, accountId, { ...filters, tagged }, page);
}

/**
 * The viewer's favourites or bookmarks that they may still see, newest first, with the row ids
 * that page them (GET /api/v1/favourites, /api/v1/bookmarks).
 */
export function markedStatuses(deps: Deps, viewerId: string, kind: 'favourites' | 'bookmarks', page: PageBounds): CursorRow[] {
  return markedStatusIds(deps.db, kind, statusVisibilitySql, viewerId, page);
}
