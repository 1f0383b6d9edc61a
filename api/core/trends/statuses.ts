import { recentStatusInteractions } from '../../db/repos/trends.js';
import type { MastodonStatus } from '../../serializers/status.js';
import { now } from '../../util/clock.js';
import { allowedStatusIds } from '../admin/trends-review.js';
import type { Deps } from '../deps.js';
import { hiddenStatusIds } from '../relationships/exclusions.js';
import { presentStatuses } from '../statuses/views.js';
import { visibleStatusIds } from '../statuses/visibility.js';
import { MIN_INTERACTIONS, STATUS_HALF_LIFE_MS, slice, trendWindow } from './activity.js';

/**
 * The statuses that trend now, best first (see activity.ts for how), for everyone: those staff
 * let trend (core/admin/trends-review.ts), or with `all`, every one (the admin list).
 */
export function rankedStatusIds(deps: Deps, options: { all?: boolean } = {}): string[] {
  const at = now();
  const { sinceId } = trendWindow(at);
  const ranked = recentStatusInteractions(deps.db, sinceId, MIN_INTERACTIONS)
    .map((s) => ({ id: s.id, score: (s.interactions - 1) ** 2 * 0.5 ** (Math.max(0, at - s.created_at) / STATUS_HALF_LIFE_MS) }))
    .sort((a, b) => b.score - a.score || (BigInt(b.id) > BigInt(a.id) ? 1 : -1))
    .map((s) => s.id);
  if (options.all || ranked.length === 0) return ranked;
  const allowed = allowedStatusIds(deps, ranked);
  return ranked.filter((id) => allowed.has(id));
}

/**
 * `GET /api/v1/trends/statuses`: a page of trending statuses, leaving out what the viewer may not
 * see or has hidden (blocks either way, mutes, domain blocks), as Mastodon filters its trends for
 * the signed-in user.
 */
export function trendingStatuses(deps: Deps, viewerId: string | null, offset: number, limit: number): MastodonStatus[] {
  let ids = rankedStatusIds(deps);
  if (ids.length === 0) return [];
  if (viewerId !== null) {
    const visible = visibleStatusIds(deps, ids, viewerId);
    const hidden = hiddenStatusIds(deps, viewerId, ids, 'timeline');
    ids = ids.filter((id) => visible.has(id) && !hidden.has(id));
  }
  return presentStatuses(deps, slice(ids, offset, limit), viewerId);
}
