import type { Deps } from '../core/deps.js';
import { mediaExtrasByFileKeys } from '../db/repos/federation.js';

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/**
 * Adds Mastodon's `blurhash` and `focalPoint` to the attachments of an outgoing activity as Fedify
 * queued it (Fedify's vocabulary has neither, so the typed objects cannot carry them). Applied to
 * outbox and fanout messages when they are enqueued. Receivers read both as plain JSON keys, as
 * Mastodon does; the terms are left out of `@context`, so JSON-LD processing (and so a Linked Data
 * signature over the activity) sees the same data as before. Other messages pass unchanged.
 */
export function withMediaExtras(deps: Deps, message: unknown): unknown {
  const m = record(message);
  if (!m || (m.type !== 'outbox' && m.type !== 'fanout')) return message;
  const object = record(record(m.activity)?.object);
  const list = object?.attachment;
  const items = (Array.isArray(list) ? list : list === undefined ? [] : [list]).map(record).filter((a): a is Record<string, unknown> => a !== null);
  const prefix = deps.uris.fileUrl('');
  const keyOf = (a: Record<string, unknown>) => (typeof a.url === 'string' && a.url.startsWith(prefix) ? decodeURIComponent(a.url.slice(prefix.length)) : null);
  const keys = items.map(keyOf).filter((k): k is string => k !== null);
  if (keys.length === 0) return message;
  const extras = mediaExtrasByFileKeys(deps.db, keys);
  for (const a of items) {
    const key = keyOf(a);
    const e = key ? extras.get(key) : undefined;
    if (!e) continue;
    if (e.blurhash) a.blurhash = e.blurhash;
    if (e.focus_x !== null && e.focus_y !== null) a.focalPoint = [e.focus_x, e.focus_y];
  }
  return message;
}
