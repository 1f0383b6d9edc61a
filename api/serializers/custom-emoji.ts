import type { CustomEmojiRow } from '../db/repos/accounts.js';
import type { Uris } from '../util/uris.js';

/** Mastodon's CustomEmoji entity. */
export interface CustomEmoji {
  shortcode: string;
  url: string;
  static_url: string;
  visible_in_picker: boolean;
  category: string | null;
}

/**
 * A custom emoji as clients see it: stored files are served by this instance, remote ones keep
 * their remote URL until the media layer caches them (or go through the media proxy when the
 * instance proxies remote media). Null when the emoji has no image at all.
 */
export function toMastodonCustomEmoji(row: CustomEmojiRow, uris: Uris): CustomEmoji | null {
  const remote = row.image_remote_url && uris.remoteMedia === 'proxy' ? uris.emojiProxyUrl(row.id) : row.image_remote_url;
  const url = row.image_file ? uris.fileUrl(row.image_file) : remote;
  if (!url) return null;
  return {
    shortcode: row.shortcode,
    url,
    static_url: row.static_file ? uris.fileUrl(row.static_file) : url,
    visible_in_picker: row.visible_in_picker === 1,
    category: row.category,
  };
}
