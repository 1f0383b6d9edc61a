import type { PageBounds } from '../../db/paging.js';
import { pageSql } from '../../db/paging.js';
import { findCardByUrl } from '../../db/repos/preview-cards.js';
import { findCardsByIds, linkStatusIds, recentLinkDailyUses, recentLinkWindowUses } from '../../db/repos/trends.js';
import { toMastodonPreviewCard, type MastodonPreviewCard } from '../../serializers/preview-card.js';
import type { MastodonTagHistory } from '../../serializers/tag.js';
import { notFound } from '../../util/errors.js';
import { allowedCardIds } from '../admin/trends-review.js';
import type { Deps } from '../deps.js';
import { excluding } from '../relationships/exclusions.js';
import { statusVisibilitySql } from '../statuses/visibility.js';
import { MIN_ACCOUNTS, rankUses, slice, trendWindow, type RankedUse } from './activity.js';

/** Mastodon's Trends::Link entity: a PreviewCard with the link's daily history. */
export interface MastodonTrendsLink extends MastodonPreviewCard {
  history: MastodonTagHistory[];
}

/**
 * The link cards that trend now, best first, with their history (see activity.ts for how): those
 * staff let trend (core/admin/trends-review.ts), or with `all`, every one (the admin list).
 */
export function rankedLinks(deps: Deps, options: { all?: boolean } = {}): RankedUse[] {
  const { today, sinceId } = trendWindow();
  const qualified = recentLinkWindowUses(deps.db, sinceId, MIN_ACCOUNTS);
  if (qualified.length === 0) return [];
  const ranked = rankUses(qualified, recentLinkDailyUses(deps.db, sinceId), today);
  if (options.all) return ranked;
  const allowed = allowedCardIds(deps, ranked.map((r) => r.key));
  return ranked.filter((r) => allowed.has(r.key));
}

/** `GET /api/v1/trends/links`: a page of trending links as Trends::Link entities. */
export function trendingLinks(deps: Deps, offset: number, limit: number): MastodonTrendsLink[] {
  const page = slice(rankedLinks(deps), offset, limit);
  if (page.length === 0) return [];
  const cards = new Map(findCardsByIds(deps.db, page.map((p) => p.key)).map((c) => [c.id, c]));
  const out: MastodonTrendsLink[] = [];
  for (const p of page) {
    const card = cards.get(p.key);
    if (card) out.push({ ...toMastodonPreviewCard(card, deps.uris), history: p.history });
  }
  return out;
}

/**
 * `GET /api/v1/timelines/link?url=`: the public statuses (not boosts) of discoverable accounts
 * that share a currently trending link, newest first, as the viewer may see them (blocks, mutes
 * and domain blocks applied as on the public timeline). A link that does not trend, or no `url`,
 * is 404, as Mastodon answers.
 */
export function linkTimeline(deps: Deps, viewerId: string | null, url: string, page: PageBounds): string[] {
  const card = url === '' ? undefined : findCardByUrl(deps.db, url);
  if (!card || !rankedLinks(deps).some((r) => r.key === card.id)) throw notFound();
  const p = pageSql('s.id', page);
  const ids = linkStatusIds(deps.db, card.id, excluding(statusVisibilitySql, 'timeline'), viewerId, p);
  return p.reverse ? ids.reverse() : ids;
}
