import { readFile, stat } from 'node:fs/promises';
import type { CustomEmojiRow } from '../../db/repos/accounts.js';
import { deleteLocalEmojiRow, listAllLocalEmojiRows } from '../../db/repos/custom-emojis.js';
import { findLocalEmojiRow, insertEmojiRow } from '../../db/repos/instance.js';
import { detectType } from '../../media/detect.js';
import { emojiStill, inspectImage } from '../../media/image.js';
import { now } from '../../util/clock.js';
import { ApiError, unprocessable } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import { isEmojiShortcode } from '../../util/text/index.js';
import type { Deps } from '../deps.js';
import { MEDIA_PROCESSING } from '../instance/limits.js';
import { mediaStorage } from '../media/storage.js';

/**
 * The instance's custom emojis, managed by the administrator (the `hearth emoji` command for now):
 * a PNG, GIF or WebP of at most 256 KiB, stored as given (animation included) with a still PNG of
 * its first frame for `static_url`.
 */

/** A new emoji as the administrator describes it. */
export interface NewEmoji {
  shortcode: string;
  /** Path of the image file. */
  file: string;
  category?: string | null | undefined;
  /** False keeps it out of the picker (it still renders where used). */
  visibleInPicker?: boolean | undefined;
}

const EMOJI_CONTAINERS = new Set(['png', 'gif', 'webp']);

/** Adds a local custom emoji (422 for a taken or malformed shortcode, or an unsuitable file). */
export async function addCustomEmoji(deps: Deps, input: NewEmoji): Promise<CustomEmojiRow> {
  if (!isEmojiShortcode(input.shortcode)) throw unprocessable('Shortcode must be at least 2 characters and only letters, digits and underscores');
  if (findLocalEmojiRow(deps.db, input.shortcode)) throw unprocessable('Shortcode has already been taken');
  const { size } = await stat(input.file).catch((err: unknown) => {
    throw new ApiError(422, `Cannot read ${input.file}`, { cause: err });
  });
  if (size > MEDIA_PROCESSING.emoji_size_limit) throw unprocessable(`Image file size must be less than ${MEDIA_PROCESSING.emoji_size_limit / 1024} KB`);
  const data = await readFile(input.file);
  const type = detectType(data.subarray(0, 4096));
  if (!type || !EMOJI_CONTAINERS.has(type.container)) throw unprocessable('Image content type is invalid (PNG, GIF or WebP)');
  let still;
  try {
    await inspectImage(data);
    still = await emojiStill(data);
  } catch (err) {
    throw new ApiError(422, 'Validation failed: Image is invalid', { cause: err });
  }
  const at = now();
  const id = newId(at);
  const storage = mediaStorage(deps);
  const imageKey = storage.newKey('custom_emojis/images', id, 'original', type.ext);
  const staticKey = storage.newKey('custom_emojis/images', id, 'static', 'png');
  await storage.write(imageKey, data);
  await storage.write(staticKey, still.data);
  const row: CustomEmojiRow = {
    id,
    shortcode: input.shortcode,
    domain: null,
    uri: null,
    image_file: imageKey,
    static_file: staticKey,
    image_remote_url: null,
    category: input.category?.trim() || null,
    visible_in_picker: input.visibleInPicker === false ? 0 : 1,
    disabled: 0,
    created_at: at,
    updated_at: at,
  };
  try {
    insertEmojiRow(deps.db, row);
  } catch (err) {
    await storage.remove([imageKey, staticKey]);
    throw err;
  }
  return row;
}

/** Every local emoji, disabled ones included. */
export function listAllCustomEmojis(deps: Deps): CustomEmojiRow[] {
  return listAllLocalEmojiRows(deps.db);
}

/** Removes a local emoji and its files (404 when there is none by that shortcode). */
export async function removeCustomEmoji(deps: Deps, shortcode: string): Promise<void> {
  const row = findLocalEmojiRow(deps.db, shortcode);
  if (!row) throw new ApiError(404, `No custom emoji :${shortcode}:`);
  deleteLocalEmojiRow(deps.db, row.id);
  await mediaStorage(deps).remove([row.image_file, row.static_file]);
}
