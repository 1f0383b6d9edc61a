import { findTagsByIds } from '../../db/repos/tag-follows.js';
import { recentTagDailyUses, recentTagWindowUses } from '../../db/repos/trends.js';
import { toMastodonTag, type MastodonTag } from '../../serializers/tag.js';
import { allowedTagIds } from '../admin/trends-review.js';
import type { Deps } from '../deps.js';
import { tagRelationships } from '../tags/tags.js';
import { MIN_ACCOUNTS, rankUses, slice, trendWindow, type RankedUse } from './activity.js';

/**
 * The hashtags that trend now, best first, with their history (see activity.ts for how): those
 * staff let trend (core/admin/trends-review.ts), or with `all`, every one (the admin list).
 */
export function rankedTags(deps: Deps, options: { all?: boolean } = {}): RankedUse[] {
  const { today, sinceId } = trendWindow();
  const qualified = recentTagWindowUses(deps.db, sinceId, MIN_ACCOUNTS);
  if (qualified.length === 0) return [];
  const ranked = rankUses(qualified, recentTagDailyUses(deps.db, sinceId), today);
  if (options.all) return ranked;
  const allowed = allowedTagIds(deps, ranked.map((r) => r.key));
  return ranked.filter((r) => allowed.has(r.key));
}

/**
 * `GET /api/v1/trends/tags` (and its older alias `/api/v1/trends`): a page of trending hashtags
 * as Tag entities with their history; `following`/`featuring` for a signed-in viewer.
 */
export function trendingTags(deps: Deps, viewerId: string | null, offset: number, limit: number): MastodonTag[] {
  const page = slice(rankedTags(deps), offset, limit);
  if (page.length === 0) return [];
  const rows = new Map(findTagsByIds(deps.db, page.map((p) => p.key)).map((r) => [r.id, r]));
  const relations = viewerId === null ? null : tagRelationships(deps, viewerId, page.map((p) => p.key));
  const out: MastodonTag[] = [];
  for (const p of page) {
    const row = rows.get(p.key);
    if (!row) continue;
    const rel = relations?.get(row.id);
    const viewer = relations === null ? {} : { following: rel?.following ?? false, featuring: rel?.featuring ?? false };
    out.push(toMastodonTag(row, deps.uris, { history: p.history, ...viewer }));
  }
  return out;
}
