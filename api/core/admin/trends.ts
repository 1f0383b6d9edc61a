import type { PageBounds } from '../../db/paging.js';
import { pageSql } from '../../db/paging.js';
import { findTagsByIds } from '../../db/repos/tag-follows.js';
import { findCardsByIds, recentLinkDailyUses, recentTagDailyUses } from '../../db/repos/trends.js';
import {
  findProvider,
  insertProviders,
  providersPage,
  setCardVerdict,
  setProviderVerdict,
  setStatusVerdict,
  setTagVerdict,
  statusVerdicts,
  tagReviews,
} from '../../db/repos/trends-review.js';
import {
  toMastodonAdminPublisher,
  toMastodonAdminTag,
  type MastodonAdminPublisher,
  type MastodonAdminTag,
  type MastodonAdminTrendsLink,
  type MastodonAdminTrendsStatus,
} from '../../serializers/admin-trends.js';
import { toMastodonPreviewCard } from '../../serializers/preview-card.js';
import type { MastodonTagHistory } from '../../serializers/tag.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import { isId, newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { presentStatuses } from '../statuses/views.js';
import { visibleStatusIds } from '../statuses/visibility.js';
import { byKey, historyOf, slice, trendWindow } from '../trends/activity.js';
import { rankedLinks } from '../trends/links.js';
import { rankedStatusIds } from '../trends/statuses.js';
import { rankedTags } from '../trends/tags.js';
import { allowedBy, linkPublisher, linkReviews } from './trends-review.js';

/**
 * Trends as staff see them (`/api/v1/admin/trends/*`): everything that trends by the numbers,
 * approved, rejected or not yet reviewed, with its review state; and the approve and reject
 * actions that decide what the public trends show (core/admin/trends-review.ts). Callers check
 * the Manage Taxonomies permission.
 */

/** The daily history of one tag or link over the trend window (for an item that is not ranked now). */
function historyFromDaily(daily: Parameters<typeof byKey>[0], key: string): MastodonTagHistory[] {
  return historyOf(byKey(daily.filter((d) => d.key_id === key)).get(key), trendWindow().today);
}

/** Admin::Tag entities of tags, with the histories given (or computed for those without). */
function adminTags(deps: Deps, ids: readonly string[], histories: Map<string, MastodonTagHistory[]>): MastodonAdminTag[] {
  const rows = new Map(findTagsByIds(deps.db, ids).map((r) => [r.id, r]));
  const reviews = tagReviews(deps.db, ids);
  const missing = ids.filter((id) => !histories.has(id));
  const daily = missing.length > 0 ? recentTagDailyUses(deps.db, trendWindow().sinceId) : [];
  const out: MastodonAdminTag[] = [];
  for (const id of ids) {
    const row = rows.get(id);
    const review = reviews.get(id);
    if (!row || !review) continue;
    const history = histories.get(id) ?? historyFromDaily(daily, id);
    out.push(toMastodonAdminTag(row, deps.uris, { history, trendable: allowedBy(review.trendable), requiresReview: review.trendable === null }));
  }
  return out;
}

/** `GET /api/v1/admin/trends/tags`: a page of the tags that trend by the numbers, reviewed or not. */
export function adminTrendingTags(deps: Deps, offset: number, limit: number): MastodonAdminTag[] {
  const page = slice(rankedTags(deps, { all: true }), offset, limit);
  return adminTags(deps, page.map((p) => p.key), new Map(page.map((p) => [p.key, p.history])));
}

/** Approves (`trendable`) or rejects a hashtag's trending; 404 for an unknown tag. */
export function reviewTag(deps: Deps, id: string, trendable: boolean): MastodonAdminTag {
  if (!isId(id)) throw notFound();
  const changed = deps.db.transaction(() => setTagVerdict(deps.db, id, trendable ? 1 : 0, now()));
  if (!changed) throw notFound();
  const [tag] = adminTags(deps, [id], new Map());
  if (!tag) throw notFound();
  return tag;
}

/**
 * Makes sure every publisher of these links has a row (its review requested now), so that staff
 * can approve or reject it; the publishers listing pages over these rows.
 */
function recordPublishers(deps: Deps, urls: readonly string[]): void {
  const domains = [...new Set(urls.flatMap((u) => linkPublisher(u) ?? []))];
  if (domains.length === 0) return;
  const at = now();
  deps.db.transaction(() => insertProviders(deps.db, domains.map((domain) => ({ id: newId(at), domain })), at));
}

/** Trends::Link entities as staff see them, for cards by id, with the histories given (or computed). */
function adminLinks(deps: Deps, ids: readonly string[], histories: Map<string, MastodonTagHistory[]>): MastodonAdminTrendsLink[] {
  const cards = new Map(findCardsByIds(deps.db, ids).map((c) => [c.id, c]));
  recordPublishers(deps, [...cards.values()].map((c) => c.url));
  const reviews = linkReviews(deps, ids);
  const missing = ids.filter((id) => !histories.has(id));
  const daily = missing.length > 0 ? recentLinkDailyUses(deps.db, trendWindow().sinceId) : [];
  const out: MastodonAdminTrendsLink[] = [];
  for (const id of ids) {
    const card = cards.get(id);
    const review = reviews.get(id);
    if (!card || !review) continue;
    const history = histories.get(id) ?? historyFromDaily(daily, id);
    out.push({ ...toMastodonPreviewCard(card, deps.uris), id: card.id, history, requires_review: review.requiresReview });
  }
  return out;
}

/**
 * `GET /api/v1/admin/trends/links`: a page of the links that trend by the numbers, reviewed or
 * not; their publishers are recorded for review as they are first seen.
 */
export function adminTrendingLinks(deps: Deps, offset: number, limit: number): MastodonAdminTrendsLink[] {
  const page = slice(rankedLinks(deps, { all: true }), offset, limit);
  return adminLinks(deps, page.map((p) => p.key), new Map(page.map((p) => [p.key, p.history])));
}

/** Approves or rejects a link card's trending; 404 for an unknown card. */
export function reviewLink(deps: Deps, id: string, trendable: boolean): MastodonAdminTrendsLink {
  if (!isId(id)) throw notFound();
  if (!deps.db.transaction(() => setCardVerdict(deps.db, id, trendable ? 1 : 0))) throw notFound();
  const [link] = adminLinks(deps, [id], new Map());
  if (!link) throw notFound();
  return link;
}

/** Trending statuses as staff see them (those they may see), with their review state, in the order given. */
function adminStatuses(deps: Deps, ids: readonly string[], viewerId: string): MastodonAdminTrendsStatus[] {
  const visible = visibleStatusIds(deps, ids, viewerId);
  const shown = ids.filter((id) => visible.has(id));
  const verdicts = statusVerdicts(deps.db, shown);
  return presentStatuses(deps, shown, viewerId).map((s) => ({ ...s, requires_review: (verdicts.get(s.id) ?? null) === null }));
}

/** `GET /api/v1/admin/trends/statuses`: a page of the statuses that trend by the numbers, reviewed or not. */
export function adminTrendingStatuses(deps: Deps, viewerId: string, offset: number, limit: number): MastodonAdminTrendsStatus[] {
  return adminStatuses(deps, slice(rankedStatusIds(deps, { all: true }), offset, limit), viewerId);
}

/**
 * Approves or rejects a status's trending; 404 for an unknown status, or one the staff member
 * cannot see (only public statuses ever trend).
 */
export function reviewStatus(deps: Deps, id: string, trendable: boolean, viewerId: string): MastodonAdminTrendsStatus {
  if (!isId(id)) throw notFound();
  // Looked at before the write: a status the staff member cannot see is not reviewed either.
  if (adminStatuses(deps, [id], viewerId).length === 0) throw notFound();
  if (!deps.db.transaction(() => setStatusVerdict(deps.db, id, trendable ? 1 : 0))) throw notFound();
  const [status] = adminStatuses(deps, [id], viewerId);
  if (!status) throw notFound();
  return status;
}

/**
 * `GET /api/v1/admin/trends/links/publishers`: the publishers of links that trend or trended,
 * newest first (paged by id); those of the links trending now are recorded first.
 */
export function listPublishers(deps: Deps, page: PageBounds): MastodonAdminPublisher[] {
  const ranked = rankedLinks(deps, { all: true });
  recordPublishers(deps, findCardsByIds(deps.db, ranked.map((r) => r.key)).map((c) => c.url));
  const p = pageSql('id', page);
  const rows = providersPage(deps.db, p);
  if (p.reverse) rows.reverse();
  return rows.map((r) => toMastodonAdminPublisher(r, allowedBy(r.trendable)));
}

/** Approves or rejects a publisher: its links trend, or not, unless reviewed one by one. 404 for an unknown one. */
export function reviewPublisher(deps: Deps, id: string, trendable: boolean): MastodonAdminPublisher {
  if (!isId(id)) throw notFound();
  if (!deps.db.transaction(() => setProviderVerdict(deps.db, id, trendable ? 1 : 0, now()))) throw notFound();
  const row = findProvider(deps.db, id);
  if (!row) throw notFound();
  return toMastodonAdminPublisher(row, allowedBy(row.trendable));
}
