import type { MarkerRow } from '../db/repos/markers.js';
import { isoTime } from '../util/clock.js';

/** Mastodon's Marker entity: a saved read position. */
export interface Marker {
  last_read_id: string;
  version: number;
  updated_at: string;
}

/** Converts a marker row to the API entity. */
export function toMastodonMarker(row: MarkerRow): Marker {
  return { last_read_id: row.last_read_id, version: row.version, updated_at: isoTime(row.updated_at) };
}

/** The `{home: Marker, notifications: Marker}` map the markers API answers with (only those present). */
export function toMastodonMarkerMap(rows: ReadonlyMap<string, MarkerRow>): Record<string, Marker> {
  const out: Record<string, Marker> = {};
  for (const [timeline, row] of rows) out[timeline] = toMastodonMarker(row);
  return out;
}
