import { rm } from 'node:fs/promises';
import type { MediaRow } from '../../db/repos/media.js';
import { deleteMediaRow, findMediaJob, findMediaRow, updateMediaRow, type MediaChange } from '../../db/repos/media-uploads.js';
import { toMastodonMediaAttachment, type MastodonMediaAttachment } from '../../serializers/media-attachment.js';
import { now } from '../../util/clock.js';
import { ApiError, notFound } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { checkDescription, parseFocus, type IncomingFile } from './rules.js';
import { mediaStorage } from './storage.js';
import { storeThumbnail } from './upload.js';

/** Reading, changing and deleting one's own uploads (GET, PUT, DELETE /api/v1/media/:id). */

/** The MediaAttachment entity of a row. */
export function presentMedia(deps: Deps, row: MediaRow): MastodonMediaAttachment {
  return toMastodonMediaAttachment(row, deps.uris);
}

/** One of the account's media (404 for anyone else's or a missing one). */
function loadOwnMedia(deps: Deps, accountId: string, id: string): MediaRow {
  const row = findMediaRow(deps.db, id);
  if (!row || row.account_id !== accountId) throw notFound();
  return row;
}

/** Where an upload stands, as GET /api/v1/media/:id answers it. */
export type MediaState = 'processing' | 'done' | 'failed';

/**
 * An upload of the account that is not attached to a status yet (404 otherwise, as Mastodon
 * scopes these endpoints), with where its processing stands.
 */
export function getOwnMedia(deps: Deps, accountId: string, id: string): { media: MediaRow; state: MediaState } {
  const row = loadOwnMedia(deps, accountId, id);
  if (row.status_id !== null) throw notFound();
  const state: MediaState = row.processing === 'done' ? 'done' : row.processing === 'failed' ? 'failed' : 'processing';
  return { media: row, state };
}

/** What PUT /api/v1/media/:id may change; absent means unchanged. */
export interface MediaUpdate {
  description?: string | null | undefined;
  focus?: string | null | undefined;
  thumbnail?: IncomingFile | null | undefined;
}

/**
 * Changes an unattached upload's description, focal point or thumbnail. Everything is checked
 * before anything is written; a new thumbnail replaces the old one, whose file is then removed.
 * The thumbnail applies to video, gifv and audio only (422 for an image, as Mastodon refuses it).
 */
export async function updateOwnMedia(deps: Deps, accountId: string, id: string, update: MediaUpdate): Promise<MediaRow> {
  const { media } = getOwnMedia(deps, accountId, id);
  const description = checkDescription(update.description);
  const focus = parseFocus(update.focus);
  if (update.thumbnail && media.type === 'image') {
    throw new ApiError(422, 'Validation failed: Thumbnail can only be set on audio and video');
  }
  const change: MediaChange = { updated_at: now() };
  if (description !== undefined) change.description = description;
  if (focus !== undefined) {
    change.focus_x = focus?.x ?? null;
    change.focus_y = focus?.y ?? null;
  }
  let newThumbnail: string | null = null;
  if (update.thumbnail) {
    const thumb = await storeThumbnail(deps, media.id, update.thumbnail);
    newThumbnail = thumb.key;
    const meta = JSON.parse(media.meta) as Record<string, unknown>;
    meta.small = thumb.small;
    Object.assign(change, { preview_key: thumb.key, blurhash: thumb.blurhash, meta: JSON.stringify(meta) });
  }
  try {
    deps.db.transaction(() => {
      // Attached meanwhile (the thumbnail took a while): the upload is no longer ours to change here.
      const current = findMediaRow(deps.db, media.id);
      if (!current || current.status_id !== null) throw notFound();
      updateMediaRow(deps.db, media.id, change);
    });
  } catch (err) {
    if (newThumbnail) await mediaStorage(deps).remove([newThumbnail]);
    throw err;
  }
  if (newThumbnail && media.preview_key) await mediaStorage(deps).remove([media.preview_key]);
  const updated = findMediaRow(deps.db, media.id);
  if (!updated) throw notFound();
  return updated;
}

/**
 * Deletes one of the account's uploads with its files; only while no status uses it (422
 * otherwise, Mastodon's answer), 404 for anyone else's.
 */
export async function deleteOwnMedia(deps: Deps, accountId: string, id: string): Promise<void> {
  const media = loadOwnMedia(deps, accountId, id);
  if (media.status_id !== null) throw new ApiError(422, 'Media attachment is currently used by a status');
  const job = findMediaJob(deps.db, media.id);
  deleteMediaRow(deps.db, media.id);
  await mediaStorage(deps).remove([media.file_key, media.preview_key]);
  if (job) await rm(job.source_path, { force: true });
}
