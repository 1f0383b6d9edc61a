import { findMarkers, findMarker, upsertMarker, type MarkerRow, type MarkerTimeline } from '../db/repos/markers.js';
import { now } from '../util/clock.js';
import type { Deps } from './deps.js';

export type { MarkerRow, MarkerTimeline };

/** The timelines that have markers, in Mastodon's order. */
export const MARKER_TIMELINES: readonly MarkerTimeline[] = ['home', 'notifications'];

/** True when `value` names a timeline with a marker. */
export function isMarkerTimeline(value: string): value is MarkerTimeline {
  return (MARKER_TIMELINES as readonly string[]).includes(value);
}

/** The account's markers for the asked timelines (unknown names ignored), keyed by timeline. */
export function getMarkers(deps: Deps, accountId: string, timelines: readonly string[]): Map<MarkerTimeline, MarkerRow> {
  const wanted = [...new Set(timelines.filter(isMarkerTimeline))];
  return new Map(findMarkers(deps.db, accountId, wanted).map((m) => [m.timeline, m]));
}

/** The account's last read notification id, if a marker was saved. */
export function notificationsReadUpTo(deps: Deps, accountId: string): string | null {
  return findMarker(deps.db, accountId, 'notifications')?.last_read_id ?? null;
}

/**
 * Saves read positions, all in one transaction. A new marker starts at version 0; each change of
 * position increments the version (Mastodon's optimistic lock counter) and updated_at; saving the
 * same position again changes nothing.
 */
export function saveMarkers(deps: Deps, accountId: string, positions: Partial<Record<MarkerTimeline, string>>): Map<MarkerTimeline, MarkerRow> {
  const at = now();
  return deps.db.transaction(() => {
    const out = new Map<MarkerTimeline, MarkerRow>();
    for (const timeline of MARKER_TIMELINES) {
      const lastReadId = positions[timeline];
      if (lastReadId === undefined) continue;
      const existing = findMarker(deps.db, accountId, timeline);
      if (existing && existing.last_read_id === lastReadId) {
        out.set(timeline, existing);
        continue;
      }
      const row: MarkerRow = {
        account_id: accountId,
        timeline,
        last_read_id: lastReadId,
        version: existing ? existing.version + 1 : 0,
        updated_at: at,
      };
      upsertMarker(deps.db, row);
      out.set(timeline, row);
    }
    return out;
  });
}
