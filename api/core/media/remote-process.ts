import { readFile } from 'node:fs/promises';
import type { Deps } from '../deps.js';
import { MEDIA_LIMITS, MEDIA_PROCESSING } from '../instance/limits.js';
import { finishAv } from './background.js';
import { mediaStorage } from './storage.js';
import { sizeMeta } from './upload.js';
import type { MediaChange } from '../../db/repos/media-uploads.js';
import type { MediaRow } from '../../db/repos/media.js';
import { detectFileType, type DetectedType } from '../../media/detect.js';
import { emojiStill, imageSlot, inspectImage, processAttachmentImage, processProfileImage, type ImageInfo } from '../../media/image.js';
import { REMOTE_MEDIA_LIMITS } from '../../media/remote-fetch.js';

/**
 * A downloaded remote file through the same pipeline as uploads: the type from the bytes, the
 * size limit of that type, images re-encoded without their metadata (EXIF, GPS…) with a small
 * preview and a blurhash when the remote gave none, video and audio read for their metadata.
 * Each function writes the stored files and returns their keys; the caller saves them.
 */

/** A remote file that will never be accepted (not media, too large, unreadable): no retry. */
export class RemoteMediaRefused extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RemoteMediaRefused';
  }
}

async function detectOrRefuse(path: string): Promise<DetectedType> {
  const type = await detectFileType(path).catch(() => null);
  if (!type) throw new RemoteMediaRefused('not a supported image, video or audio file');
  return type;
}

async function inspectOrRefuse(input: string | Buffer, maxPixels: number): Promise<ImageInfo> {
  let info: ImageInfo;
  try {
    info = await inspectImage(input);
  } catch (err) {
    throw new RemoteMediaRefused('unreadable image', { cause: err });
  }
  if (info.width * info.height > maxPixels) throw new RemoteMediaRefused(`${info.width}x${info.height} images are not supported`);
  return info;
}

/** Runs image work, turning an image library failure into a refusal. */
async function imageWork<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await imageSlot(work);
  } catch (err) {
    throw new RemoteMediaRefused('the image could not be processed', { cause: err });
  }
}

/** A stored copy: what the record's row gets, and every key written for it. */
export interface AttachmentCopy {
  change: MediaChange;
  keys: string[];
}

/**
 * Processes a downloaded remote attachment: an image becomes an original and a small preview
 * (blurhash computed only when the remote sent none); video and audio are checked and moved into
 * storage (the file at `path` is consumed then), and a video or GIFV that came without a preview
 * gets its first frame as one (see finishAv).
 */
export async function processRemoteAttachment(deps: Deps, row: MediaRow, path: string, size: number): Promise<AttachmentCopy> {
  const type = await detectOrRefuse(path);
  const limit = type.kind === 'image' ? REMOTE_MEDIA_LIMITS.imageBytes : REMOTE_MEDIA_LIMITS.attachmentBytes;
  if (size > limit) throw new RemoteMediaRefused(`${size} bytes is over the ${limit} bytes limit of ${type.kind} files`);
  const storage = mediaStorage(deps);
  if (type.kind === 'image') {
    const info = await inspectOrRefuse(path, MEDIA_PROCESSING.image_max_input_pixels);
    const processed = await imageWork(() =>
      processAttachmentImage(path, type, info, { originalPixels: MEDIA_LIMITS.image_matrix_limit, smallPixels: MEDIA_PROCESSING.image_small_pixels }),
    );
    const fileKey = storage.newKey('media_attachments/files', row.id, 'original', processed.original.ext);
    const smallKey = storage.newKey('media_attachments/files', row.id, 'small', processed.small.ext);
    const keys: string[] = [];
    try {
      await storage.write(fileKey, processed.original.data);
      keys.push(fileKey);
      await storage.write(smallKey, processed.small.data);
      keys.push(smallKey);
    } catch (err) {
      await storage.remove(keys);
      throw err;
    }
    const change: MediaChange = {
      type: 'image',
      file_key: fileKey,
      preview_key: smallKey,
      file_content_type: processed.original.mime,
      file_size: processed.original.data.length,
      meta: JSON.stringify({ original: sizeMeta(processed.original.width, processed.original.height), small: sizeMeta(processed.small.width, processed.small.height) }),
      blurhash: row.blurhash ?? processed.blurhash,
      processing: 'done',
    };
    return { change, keys };
  }
  let done: MediaRow;
  try {
    done = await finishAv(deps, row, path, type);
  } catch (err) {
    // finishAv refuses unreadable files and too large pictures with a 422; nothing else is expected.
    throw new RemoteMediaRefused((err as Error).message, { cause: err });
  }
  // A video that came without a preview got its first frame from finishAv: that file is kept too.
  const framed = done.preview_key !== row.preview_key ? done.preview_key : null;
  const change: MediaChange = {
    type: done.type,
    file_key: done.file_key,
    file_content_type: done.file_content_type,
    file_size: done.file_size,
    meta: done.meta,
    processing: 'done',
    ...(framed ? { preview_key: framed, blurhash: done.blurhash } : {}),
  };
  return { change, keys: [done.file_key, framed].filter((k): k is string => k !== null) };
}

/** A stored avatar or header: the picture and, for an animated one, its still first frame. */
export interface ProfileImageCopy {
  file: string;
  still: string | null;
  keys: string[];
}

/** Processes a downloaded remote avatar or header: cropped to Mastodon's sizes, metadata dropped. */
export async function processRemoteProfileImage(deps: Deps, accountId: string, kind: 'avatar' | 'header', path: string): Promise<ProfileImageCopy> {
  const type = await detectOrRefuse(path);
  if (type.kind !== 'image') throw new RemoteMediaRefused(`a ${kind} must be an image`);
  const info = await inspectOrRefuse(path, MEDIA_LIMITS.image_matrix_limit);
  const size = kind === 'avatar' ? MEDIA_PROCESSING.avatar_size : MEDIA_PROCESSING.header_size;
  const { image, still } = await imageWork(() => processProfileImage(path, type, info, size));
  const storage = mediaStorage(deps);
  const storedKind = kind === 'avatar' ? 'accounts/avatars' : 'accounts/headers';
  const keys: string[] = [];
  try {
    const file = storage.newKey(storedKind, accountId, 'original', image.ext);
    await storage.write(file, image.data);
    keys.push(file);
    let stillKey: string | null = null;
    if (still) {
      stillKey = storage.newKey(storedKind, accountId, 'static', still.ext);
      await storage.write(stillKey, still.data);
      keys.push(stillKey);
    }
    return { file, still: stillKey, keys };
  } catch (err) {
    await storage.remove(keys);
    throw err;
  }
}

const EMOJI_CONTAINERS = new Set(['png', 'gif', 'webp']);

/** A stored custom emoji: the image as received (animation kept) and its still PNG. */
export interface EmojiCopy {
  image: string;
  still: string;
  keys: string[];
}

/** Processes a downloaded remote emoji: a PNG, GIF or WebP, stored as it is, with a still PNG. */
export async function processRemoteEmoji(deps: Deps, emojiId: string, path: string): Promise<EmojiCopy> {
  const type = await detectOrRefuse(path);
  if (!EMOJI_CONTAINERS.has(type.container)) throw new RemoteMediaRefused('an emoji must be a PNG, GIF or WebP image');
  const data = await readFile(path);
  await inspectOrRefuse(data, MEDIA_LIMITS.image_matrix_limit);
  const still = await imageWork(() => emojiStill(data));
  const storage = mediaStorage(deps);
  const image = storage.newKey('custom_emojis/images', emojiId, 'original', type.ext);
  const stillKey = storage.newKey('custom_emojis/images', emojiId, 'static', 'png');
  const keys: string[] = [];
  try {
    await storage.write(image, data);
    keys.push(image);
    await storage.write(stillKey, still.data);
    keys.push(stillKey);
  } catch (err) {
    await storage.remove(keys);
    throw err;
  }
  return { image, still: stillKey, keys };
}
