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
 * The MediaAttachment entity of a media row. Local files (uploads, and remote media once copied
 * here) are served from our storage; remote media not stored locally points at its remote URL, or
 * at the media proxy when the instance proxies remote media. `remote_url` always keeps the
 * original. The focal point is part of `meta`, as Mastodon puts it.
 */
export function toMastodonMediaAttachment(row: MediaRow, uris: Uris): MastodonMediaAttachment {
  const meta = parseMeta(row.meta);
  if (row.focus_x !== null && row.focus_y !== null) meta.focus = { x: row.focus_x, y: row.focus_y };
  const proxied = uris.remoteMedia === 'proxy' && row.remote_url !== null;
  const url = row.file_key ? uris.fileUrl(row.file_key) : proxied ? uris.mediaProxyUrl(row.id, 'original') : row.remote_url;
  let previewUrl = row.preview_key ? uris.fileUrl(row.preview_key) : (row.preview_remote_url ?? (row.type === 'image' ? url : null));
  // The proxy's `small` style streams the remote preview (or the remote image itself).
  if (!row.preview_key && proxied && previewUrl !== null) previewUrl = uris.mediaProxyUrl(row.id, 'small');
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
