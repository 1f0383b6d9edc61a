import { MEDIA_PROCESSING } from '../instance/limits.js';
import type { DetectedType } from '../../media/detect.js';
import { videoStill } from '../../media/video-frame.js';
import type { Deps } from '../deps.js';
import { mediaStorage } from './storage.js';

/** A stored preview frame of a video. */
export interface VideoPreview {
  key: string;
  blurhash: string;
  width: number;
  height: number;
}

/**
 * Makes and stores the preview of a video or GIFV that has none (its first frame, at the size of
 * an image's small preview), as Mastodon makes one for every video. Null when there is none to be
 * had (no ffmpeg installed, an undecodable stream, storage failing): the video is kept all the
 * same, without a preview.
 */
export async function storeVideoPreview(deps: Deps, mediaId: string, path: string | null, type: DetectedType): Promise<VideoPreview | null> {
  if (!path) return null;
  const still = await videoStill(path, type, MEDIA_PROCESSING.image_small_pixels).catch(() => null);
  if (!still) return null;
  const storage = mediaStorage(deps);
  const key = storage.newKey('media_attachments/files', mediaId, 'small', still.image.ext);
  try {
    await storage.write(key, still.image.data);
  } catch (err) {
    console.error(`storing the preview of video ${mediaId} failed`, err);
    return null;
  }
  return { key, blurhash: still.blurhash, width: still.image.width, height: still.image.height };
}
