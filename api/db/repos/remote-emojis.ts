import type { Db } from '../connection.js';
import type { CustomEmojiRow } from './accounts.js';

/** A remote custom emoji by shortcode and domain (exact). */
export function findRemoteEmoji(db: Db, shortcode: string, domain: string): CustomEmojiRow | undefined {
  return db.query<CustomEmojiRow>('SELECT * FROM custom_emojis WHERE shortcode = ? AND domain = ?').get(shortcode, domain);
}

/** Points a remote emoji at a new image (its stored copy, if any, is dropped: it shows the old one). */
export function setRemoteEmojiImage(db: Db, id: string, uri: string | null, imageRemoteUrl: string, at: number): void {
  db.query('UPDATE custom_emojis SET uri = @uri, image_remote_url = @url, image_file = NULL, static_file = NULL, updated_at = @at WHERE id = @id').run({
    id,
    uri,
    url: imageRemoteUrl,
    at,
  });
}
