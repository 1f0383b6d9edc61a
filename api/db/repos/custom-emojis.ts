import type { Db } from '../connection.js';
import type { CustomEmojiRow } from './accounts.js';

/** Named queries for managing the instance's own custom emojis (the CLI). */

/** Every local emoji, disabled ones included, by shortcode. */
export function listAllLocalEmojiRows(db: Db): CustomEmojiRow[] {
  return db.query<CustomEmojiRow>('SELECT * FROM custom_emojis WHERE domain IS NULL ORDER BY lower(shortcode), shortcode').all();
}

/** Deletes a local emoji by shortcode; returns the number of rows deleted. */
export function deleteLocalEmojiRow(db: Db, id: string): number {
  return db.query('DELETE FROM custom_emojis WHERE id = @id AND domain IS NULL').run({ id }).changes;
}
