import { rm } from 'node:fs/promises';
import type { AccountRow } from '../../db/repos/accounts.js';
import type { MediaRow } from '../../db/repos/media.js';
import { insertMediaJob, insertMediaRow } from '../../db/repos/media-uploads.js';
import type { DetectedType } from '../../media/detect.js';
import { imageSlot, processAttachmentImage, processStill } from '../../media/image.js';
import { moveFile } from '../../media/storage.js';
import { now } from '../../util/clock.js';
import { ApiError } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { MEDIA_LIMITS, MEDIA_PROCESSING } from '../instance/limits.js';
import { finishAv, startBackgroundJob } from './background.js';
import { canConvertVideo, checkVideoLimits } from './convert.js';
import { asUploadError, checkDescription, checkSize, detectOrRefuse, inspectOrRefuse, parseFocus, sizeLimitFor, type IncomingFile } from './rules.js';
import { mediaStorage } from './storage.js';

/** What POST /api/v1/media and /api/v2/media take besides the file. */
export interface UploadParams {
  description?: string | null | undefined;
  focus?: string | null | undefined;
  /** A picture shown for video and audio (ignored for images, which make their own preview). */
  thumbnail?: IncomingFile | null | undefined;
}

/** A stored thumbnail: its key and what the attachment shows of it. */
export interface StoredThumbnail {
  key: string;
  blurhash: string;
  small: { width: number; height: number; size: string; aspect: number };
}

/** Mastodon's size record of `meta.original` and `meta.small`. */
export function sizeMeta(width: number, height: number): { width: number; height: number; size: string; aspect: number } {
  return { width, height, size: `${width}x${height}`, aspect: width / height };
}

/**
 * Checks and processes a thumbnail upload and stores it under the attachment's id (422 for a
 * file that is not an image or is too large). The caller removes the key if it does not keep it.
 */
export async function storeThumbnail(deps: Deps, mediaId: string, file: IncomingFile): Promise<StoredThumbnail> {
  const invalid = new ApiError(422, 'Validation failed: Thumbnail content type is invalid, Thumbnail is invalid');
  const type = await detectOrRefuse(file).catch(() => {
    throw invalid;
  });
  if (type.kind !== 'image') throw invalid;
  checkSize(file.size, sizeLimitFor('image'), 'Thumbnail');
  const info = await inspectOrRefuse(file.path);
  const { image, blurhash } = await imageSlot(() => processStill(file.path, type, info, { pixels: MEDIA_PROCESSING.thumbnail_pixels })).catch((err: unknown) => {
    throw asUploadError(err);
  });
  const storage = mediaStorage(deps);
  const key = storage.newKey('media_attachments/thumbnails', mediaId, 'original', image.ext);
  await storage.write(key, image.data);
  return { key, blurhash, small: sizeMeta(image.width, image.height) };
}

/** The result of an upload: the row, and whether it still processes in the background. */
export interface UploadResult {
  media: MediaRow;
  processing: boolean;
}

function baseRow(id: string, account: AccountRow, type: DetectedType, at: number, description: string | null, focus: { x: number; y: number } | null): MediaRow {
  return {
    id,
    account_id: account.id,
    status_id: null,
    position: 0,
    type: type.kind === 'audio' ? 'audio' : type.kind === 'video' ? 'video' : 'image',
    file_key: null,
    preview_key: null,
    file_content_type: type.mime,
    file_size: null,
    remote_url: null,
    preview_remote_url: null,
    description,
    focus_x: focus?.x ?? null,
    focus_y: focus?.y ?? null,
    meta: '{}',
    blurhash: null,
    processing: 'processing',
    created_at: at,
    updated_at: at,
  };
}

/**
 * Accepts an upload for the account. Everything that can be checked quickly is checked first,
 * writing nothing (description, focus, type from the bytes, size per type, image dimensions);
 * then images are processed at once: the original (scaled down to image_matrix_limit when
 * larger), the small preview and the blurhash; an animated GIF is converted at once to a looping
 * H.264 MP4 (gifv). Video and audio are processed at once too when `background` is false (v1);
 * with `background` (v2) the file waits in the staging directory with a job row and the answer
 * comes before processing (`processing` true). Videos are converted to H.264 MP4 (see convert.ts).
 * On any failure the files written so far are removed, so nothing is left behind.
 */
export async function uploadMedia(deps: Deps, account: AccountRow, file: IncomingFile, params: UploadParams, options: { background: boolean }): Promise<UploadResult> {
  const description = checkDescription(params.description) ?? null;
  const focus = parseFocus(params.focus) ?? null;
  const type = await detectOrRefuse(file);
  checkSize(file.size, sizeLimitFor(type.kind));
  const storage = mediaStorage(deps);
  const at = now();
  const id = newId(at);
  const row = baseRow(id, account, type, at, description, focus);
  const written: string[] = [];
  try {
    const info = type.kind === 'image' ? await inspectOrRefuse(file.path, MEDIA_PROCESSING.image_max_input_pixels) : null;
    // An animated GIF becomes a looping video (gifv), converted at once as Mastodon does (its
    // GIFs are images until processed); where no ffmpeg is installed it stays an animated GIF.
    if (type.container === 'gif' && info?.animated && canConvertVideo()) {
      checkVideoLimits(info.width, info.height, null);
      const done = await finishAv(deps, row, file.path, type, { convert: true });
      if (done.file_key) written.push(done.file_key);
      if (done.preview_key) written.push(done.preview_key);
      insertMediaRow(deps.db, done);
      return { media: done, processing: false };
    }
    if (info) {
      const processed = await imageSlot(() =>
        processAttachmentImage(file.path, type, info, { originalPixels: MEDIA_LIMITS.image_matrix_limit, smallPixels: MEDIA_PROCESSING.image_small_pixels }),
      ).catch((err: unknown) => {
        throw asUploadError(err);
      });
      const fileKey = storage.newKey('media_attachments/files', id, 'original', processed.original.ext);
      const smallKey = storage.newKey('media_attachments/files', id, 'small', processed.small.ext);
      await storage.write(fileKey, processed.original.data);
      written.push(fileKey);
      await storage.write(smallKey, processed.small.data);
      written.push(smallKey);
      Object.assign(row, {
        file_key: fileKey,
        preview_key: smallKey,
        file_content_type: processed.original.mime,
        file_size: processed.original.data.length,
        meta: JSON.stringify({ original: sizeMeta(processed.original.width, processed.original.height), small: sizeMeta(processed.small.width, processed.small.height) }),
        blurhash: processed.blurhash,
        processing: 'done',
      } satisfies Partial<MediaRow>);
      insertMediaRow(deps.db, row);
      return { media: row, processing: false };
    }

    const thumbnail = params.thumbnail ? await storeThumbnail(deps, id, params.thumbnail) : null;
    if (thumbnail) {
      written.push(thumbnail.key);
      Object.assign(row, { preview_key: thumbnail.key, blurhash: thumbnail.blurhash, meta: JSON.stringify({ small: thumbnail.small }) });
    }
    if (!options.background) {
      const done = await finishAv(deps, row, file.path, type, { convert: true });
      if (done.file_key) written.push(done.file_key);
      if (done.preview_key && done.preview_key !== row.preview_key) written.push(done.preview_key);
      insertMediaRow(deps.db, done);
      return { media: done, processing: false };
    }
    const staged = await storage.stagingPath();
    await moveFile(file.path, staged);
    try {
      deps.db.transaction(() => {
        insertMediaRow(deps.db, row);
        insertMediaJob(deps.db, { media_id: id, source_path: staged, attempts: 0, created_at: at });
      });
    } catch (err) {
      await rm(staged, { force: true });
      throw err;
    }
    startBackgroundJob(deps, id);
    return { media: row, processing: true };
  } catch (err) {
    await storage.remove(written);
    throw err;
  }
}
