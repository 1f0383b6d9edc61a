import { getMarkers, MARKER_TIMELINES, saveMarkers, type MarkerTimeline } from '../../core/markers.js';
import { toMastodonMarkerMap } from '../../serializers/marker.js';
import { unprocessable } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import { arrayOf, parse, z } from '../params.js';
import type { Routes } from '../routes.js';

const getSchema = z.object({ timeline: arrayOf(z.string()) });

/**
 * The positions a POST asks to save: `home[last_read_id]` and `notifications[last_read_id]` (form
 * or JSON). A timeline given without a usable id is a validation error, as Mastodon's model says.
 */
function positionsFrom(input: Record<string, unknown>): Partial<Record<MarkerTimeline, string>> {
  const out: Partial<Record<MarkerTimeline, string>> = {};
  for (const timeline of MARKER_TIMELINES) {
    const given = input[timeline];
    if (given === undefined || given === null || typeof given !== 'object' || Array.isArray(given)) continue;
    const raw = (given as Record<string, unknown>).last_read_id;
    const value = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
    if (value === undefined || value === null || value === '') {
      throw unprocessable("Last read can't be blank", { details: { last_read_id: [{ error: 'ERR_BLANK', description: "can't be blank" }] } });
    }
    if (typeof value !== 'string' || !isId(value)) {
      throw unprocessable('Last read is invalid', { details: { last_read_id: [{ error: 'ERR_INVALID', description: 'is invalid' }] } });
    }
    out[timeline] = value;
  }
  return out;
}

/** GET/POST /api/v1/markers: saved read positions in the home and notifications timelines. */
export function register(r: Routes): void {
  r.get('/api/v1/markers', 'user', ['read:statuses'], (ctx) => {
    const p = parse(getSchema, ctx.input);
    return toMastodonMarkerMap(getMarkers(ctx.deps, ctx.account.id, p.timeline ?? []));
  });

  r.post('/api/v1/markers', 'user', ['write:statuses'], (ctx) => toMastodonMarkerMap(saveMarkers(ctx.deps, ctx.account.id, positionsFrom(ctx.input))));
}
