import type { MediaRow } from '../db/repos/media.js';
import type { Uris } from '../util/uris.js';

/** Mastodon's MediaAttachment entity. */
export interface MastodonMediaAttachment {
  id: string;
  type: MediaRow['type'];
  url: string | null;
  preview_url: string | null;
  remote_url: string | null;
  preview_remote_url: string | null;
  text_url: string | null;
  meta: Record<string, unknown> | null;
  description: string | null;
  blurhash: string | null;
}

function parseMeta(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The MediaAttachment entity of a media row. Local files are served from our storage; remote media
 * not stored locally points at its remote URL. The focal point is part of `meta`, as Mastodon puts it.
 */
export function toMastodonMediaAttachment(row: MediaRow, uris: Uris): MastodonMediaAttachment {
  const meta = parseMeta(row.meta);
  if (row.focus_x !== null && row.focus_y !== null) meta.focus = { x: row.focus_x, y: row.focus_y };
  const url = row.file_key ? uris.fileUrl(row.file_key) : row.remote_url;
  const previewUrl = row.preview_key ? uris.fileUrl(row.preview_key) : (row.preview_remote_url ?? (row.type === 'image' ? url : null));
  return {
    id: row.id,
    type: row.type,
    url,
    preview_url: previewUrl,
    remote_url: row.remote_url,
    preview_remote_url: row.preview_remote_url,
    text_url: null,
    meta,
    description: row.description,
    blurhash: row.blurhash,
  };
}
