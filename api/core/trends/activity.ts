import type { DailyUse, WindowUse } from '../../db/repos/trends.js';
import type { MastodonTagHistory } from '../../serializers/tag.js';
import { now } from '../../util/clock.js';
import { minIdAtTime } from '../../util/ids.js';

/**
 * How trends are computed, in the spirit of Mastodon's (its Trends::Tags, ::Links and ::Statuses),
 * from what this instance has seen, local and federated alike, and nothing else:
 *
 * - a window of the last seven UTC days (today included), the span of the `history` Mastodon
 *   serializes with each trending tag and link;
 * - tags and links count the public statuses (not boosts) that used them and the distinct accounts
 *   behind those, per day. One that at least MIN_ACCOUNTS distinct accounts used in the window
 *   trends, ranked by the accounts of each day weighted by recency (today counts fully, each day
 *   before half as much), so that what many people take up now comes before what was busy days ago.
 *   Mastodon asks for more people (5 in a day) because it serves thousands; a personal instance
 *   sees far fewer, so two people taking up the same tag or link is already a signal;
 * - statuses trend by the favourites and boosts of other accounts (the author's own do not count):
 *   at least MIN_INTERACTIONS of them, scored as Mastodon scores statuses ((observed − 1)² with one
 *   interaction expected) and halved for every day of the status's age;
 * - statuses and links come only from accounts that opted into discovery, as Mastodon requires.
 *
 * Nothing is invented: with too little activity, every list is empty.
 */

export const DAY_MS = 86_400_000;
/** Days of history (and of the window trends are computed over). */
export const TREND_DAYS = 7;
/** Distinct accounts that must have used a tag or link within the window. */
export const MIN_ACCOUNTS = 2;
/** Distinct other accounts that must have favourited or boosted a status. */
export const MIN_INTERACTIONS = 2;
/** A status's score halves with each of these of its age. */
export const STATUS_HALF_LIFE_MS = DAY_MS;

/** The window's days (days since the epoch, UTC), today first, and the first id inside it. */
export function trendWindow(at: number = now()): { today: number; sinceId: string } {
  const today = Math.floor(at / DAY_MS);
  return { today, sinceId: minIdAtTime((today - (TREND_DAYS - 1)) * DAY_MS) };
}

/** Daily uses grouped by key (tag or card id), then by day. */
export function byKey(rows: readonly DailyUse[]): Map<string, Map<number, DailyUse>> {
  const out = new Map<string, Map<number, DailyUse>>();
  for (const r of rows) {
    let days = out.get(r.key_id);
    if (!days) out.set(r.key_id, (days = new Map()));
    days.set(r.day, r);
  }
  return out;
}

/** The `history` Mastodon serializes: one entry per day of the window, today first, numbers as strings. */
export function historyOf(days: Map<number, DailyUse> | undefined, today: number): MastodonTagHistory[] {
  const list: MastodonTagHistory[] = [];
  for (let d = today; d > today - TREND_DAYS; d--) {
    const u = days?.get(d);
    list.push({ day: String((d * DAY_MS) / 1000), uses: String(u?.uses ?? 0), accounts: String(u?.accounts ?? 0) });
  }
  return list;
}

/** A tag or link that trends: its key, score and history. */
export interface RankedUse {
  key: string;
  score: number;
  history: MastodonTagHistory[];
}

/**
 * Ranks the tags or links that qualify (`qualified`: those used by enough distinct accounts),
 * highest score first; ties go to the most recently used.
 */
export function rankUses(qualified: readonly WindowUse[], daily: readonly DailyUse[], today: number): RankedUse[] {
  const days = byKey(daily);
  return qualified
    .map((q) => {
      const perDay = days.get(q.key_id);
      let score = 0;
      for (const [day, use] of perDay ?? []) score += use.accounts * 0.5 ** Math.max(0, today - day);
      return { key: q.key_id, score, last: BigInt(q.last_status_id), history: historyOf(perDay, today) };
    })
    .sort((a, b) => b.score - a.score || (b.last > a.last ? 1 : b.last < a.last ? -1 : 0))
    .map(({ key, score, history }) => ({ key, score, history }));
}

/** A page of a ranked list. */
export function slice<T>(items: readonly T[], offset: number, limit: number): T[] {
  return items.slice(offset, offset + limit);
}
