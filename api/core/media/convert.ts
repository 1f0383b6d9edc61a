import { rm } from 'node:fs/promises';
import type { DetectedType } from '../../media/detect.js';
import { convertToMp4, inspectStreams, planConversion, TranscodeError, type StreamReport } from '../../media/transcode.js';
import { ffmpegPath } from '../../media/video-frame.js';
import { ApiError } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { MEDIA_LIMITS } from '../instance/limits.js';
import { checkSize, invalidFile, sizeLimitFor } from './rules.js';
import { mediaStorage } from './storage.js';

/** The type of every converted file. */
export const CONVERTED_MP4: DetectedType = { kind: 'video', mime: 'video/mp4', ext: 'mp4', container: 'isobmff' };

/** Whether uploads can be converted here (an ffmpeg is installed). */
export function canConvertVideo(): boolean {
  return ffmpegPath() !== null;
}

/**
 * Refuses a video above Mastodon's limits: its picture (width × height, video_matrix_limit) or its
 * frame rate (video_frame_rate_limit), with Mastodon's words.
 */
export function checkVideoLimits(width: number | null, height: number | null, frameRate: number | null): void {
  if (width !== null && height !== null && width * height > MEDIA_LIMITS.video_matrix_limit) {
    throw new ApiError(422, `Validation failed: ${width}x${height} videos are not supported`);
  }
  if (frameRate !== null && frameRate > MEDIA_LIMITS.video_frame_rate_limit) {
    throw new ApiError(422, `Validation failed: Videos with a frame rate above ${MEDIA_LIMITS.video_frame_rate_limit} are not supported`);
  }
}

/** Turns a failed conversion into Mastodon's 422 (a file it cannot process is an invalid file). */
function asUploadError(err: unknown, limit: number): unknown {
  if (!(err instanceof TranscodeError)) return err;
  if (err.reason === 'too-large') {
    try {
      checkSize(limit + 1, limit);
    } catch (sizeError) {
      return sizeError;
    }
  }
  return invalidFile(err);
}

/**
 * Converts a local upload's video or animated GIF to an H.264 MP4 in the staging directory, as
 * Mastodon does with every uploaded video (see media/transcode.ts): its streams are read first
 * (422 when ffmpeg finds none, or the picture or frame rate is above the limits), then it is
 * copied or encoded in a child process. Returns the new file's path (the caller moves it into
 * storage and removes the source) and what ffmpeg reported of the source; null when there is no
 * ffmpeg, in which case the file is stored as it came. On failure nothing is left of the output.
 */
export async function convertUpload(deps: Deps, source: string, type: DetectedType): Promise<{ path: string; report: StreamReport } | null> {
  if (!canConvertVideo()) return null;
  const limit = sizeLimitFor('video');
  let report: StreamReport | null;
  try {
    report = await inspectStreams(source, type);
  } catch (err) {
    throw asUploadError(err, limit);
  }
  if (!report) return null;
  if (!report.video) throw invalidFile();
  checkVideoLimits(report.video.width || null, report.video.height || null, report.video.frameRate);
  const plan = planConversion(type, report, { sizeLimit: limit, frameRateLimit: MEDIA_LIMITS.video_frame_rate_limit });
  const output = `${await mediaStorage(deps).stagingPath()}.mp4`;
  try {
    await convertToMp4(source, type, output, plan, { maxBytes: limit, durationSeconds: report.duration });
  } catch (err) {
    await rm(output, { force: true });
    throw asUploadError(err, limit);
  }
  return { path: output, report };
}
