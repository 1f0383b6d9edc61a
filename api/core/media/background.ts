import { rm, stat } from 'node:fs/promises';
import type { MediaRow } from '../../db/repos/media.js';
import {
  bumpMediaJobAttempts,
  deleteMediaJob,
  findMediaJob,
  findMediaRow,
  listMediaJobs,
  updateMediaRow,
} from '../../db/repos/media-uploads.js';
import { avMeta, probeAv } from '../../media/av/index.js';
import { rationalValue } from '../../media/av/types.js';
import { detectFileType, type DetectedType } from '../../media/detect.js';
import { now } from '../../util/clock.js';
import { ApiError } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { checkVideoLimits, CONVERTED_MP4, convertUpload } from './convert.js';
import { invalidFile } from './rules.js';
import { mediaStorage, mediaTestHooks } from './storage.js';
import { sizeMeta } from './upload.js';
import { storeVideoPreview } from './video-preview.js';

/**
 * Audio and video: reading their metadata and storing them, at once (v1) or in the background
 * (v2). Background work is recorded in `media_jobs`, so that uploads accepted before a restart
 * are processed after it (the scheduler's `resumeMediaJobs`).
 */

/** How often a background job is tried before the upload is marked failed. */
const MAX_ATTEMPTS = 3;

/**
 * The type and served MIME type of an audio or video file, from its tracks: no picture is audio;
 * a picture without sound is `gifv` (Mastodon's rule: silent videos loop like GIFs).
 */
function classify(type: DetectedType, hasVideo: boolean, hasAudio: boolean): { type: MediaRow['type']; mime: string; ext: string } {
  if (!hasVideo) {
    if (type.container === 'isobmff' && type.mime !== 'audio/3gpp') return { type: 'audio', mime: 'audio/mp4', ext: 'm4a' };
    if (type.container === 'webm') return { type: 'audio', mime: 'audio/webm', ext: 'webm' };
    return { type: 'audio', mime: type.mime, ext: type.ext };
  }
  if (type.kind === 'audio') {
    // An audio-branded MP4 that carries a picture is a video after all.
    return { type: hasAudio ? 'video' : 'gifv', mime: 'video/mp4', ext: 'mp4' };
  }
  return { type: hasAudio ? 'video' : 'gifv', mime: type.mime, ext: type.ext };
}

/**
 * Reads an audio or video file's metadata, checks Mastodon's video limits (picture size, frame
 * rate), and moves the file into storage. With `convert` (local uploads, where an ffmpeg is
 * installed) a video or an animated GIF is first converted to an H.264 MP4 as Mastodon converts
 * them (see convert.ts): the stored file, its type and its metadata are the converted file's, and
 * the source is removed. Returns the row as it is once done (not yet saved); 422 when the file
 * cannot be read or converted, leaving nothing behind in storage.
 */
export async function finishAv(deps: Deps, row: MediaRow, source: string, detected?: DetectedType, options: { convert?: boolean } = {}): Promise<MediaRow> {
  const type = detected ?? (await detectFileType(source));
  const gif = type?.container === 'gif' && options.convert === true;
  if (!type || (type.kind === 'image' && !gif)) throw invalidFile();
  // A GIF has no container metadata to read: ffmpeg's report stands for it.
  let probe = gif ? null : await probeAv(source, type);
  if (!gif && (!probe || (!probe.hasAudio && !probe.hasVideo))) throw invalidFile();
  if (probe?.hasVideo) checkVideoLimits(probe.width, probe.height, rationalValue(probe.frameRate));
  let file = source;
  let fileType = type;
  let converted: string | null = null;
  if (options.convert && (gif || probe?.hasVideo)) {
    const made = await convertUpload(deps, source, type);
    if (made) {
      converted = made.path;
      file = made.path;
      fileType = CONVERTED_MP4;
      probe = await probeAv(file, fileType);
      // ffmpeg can end well having encoded nothing (no frame could be decoded): not a video.
      if (!probe?.hasVideo || !(probe.duration !== null && probe.duration > 0)) {
        await rm(file, { force: true });
        throw invalidFile();
      }
    }
  }
  if (!probe) throw invalidFile();
  const kind = classify(fileType, probe.hasVideo, probe.hasAudio);
  const { size } = await stat(file);
  const meta: Record<string, unknown> = avMeta(probe, size);
  // A thumbnail's size, already in meta as `small`, stays.
  const previous = JSON.parse(row.meta) as Record<string, unknown>;
  if (previous.small) meta.small = previous.small;
  const storage = mediaStorage(deps);
  const key = storage.newKey('media_attachments/files', row.id, 'original', kind.ext);
  try {
    await storage.moveIn(file, key);
  } catch (err) {
    if (converted) await rm(converted, { force: true });
    throw err;
  }
  // The upload itself is not needed once its conversion is stored.
  if (converted) await rm(source, { force: true });
  // A video without a preview (no thumbnail uploaded, none given by the remote server) gets its
  // first frame, as Mastodon makes one; a blurhash the remote sent stays.
  let preview: Pick<MediaRow, 'preview_key' | 'blurhash'> = { preview_key: row.preview_key, blurhash: row.blurhash };
  if (row.preview_key === null && row.preview_remote_url === null && kind.type !== 'audio') {
    const made = await storeVideoPreview(deps, row.id, storage.pathOf(key), fileType);
    if (made) {
      preview = { preview_key: made.key, blurhash: row.blurhash ?? made.blurhash };
      meta.small = sizeMeta(made.width, made.height);
    }
  }
  return {
    ...row,
    ...preview,
    type: kind.type,
    file_key: key,
    file_content_type: kind.mime,
    file_size: size,
    meta: JSON.stringify(meta),
    processing: 'done',
    updated_at: now(),
  };
}

const running = new WeakMap<Deps, Set<string>>();

function runningSet(deps: Deps): Set<string> {
  let set = running.get(deps);
  if (!set) {
    set = new Set();
    running.set(deps, set);
  }
  return set;
}

/** Processes one waiting upload; a second call for the same media while it runs does nothing. */
export async function runMediaJob(deps: Deps, mediaId: string): Promise<void> {
  const inFlight = runningSet(deps);
  if (inFlight.has(mediaId)) return;
  inFlight.add(mediaId);
  try {
    if (mediaTestHooks.beforeBackgroundJob) await mediaTestHooks.beforeBackgroundJob();
    // The instance closed meanwhile: the job waits in the database for the next start.
    if (!deps.db.raw.open) return;
    const job = findMediaJob(deps.db, mediaId);
    if (!job) return;
    const row = findMediaRow(deps.db, mediaId);
    if (!row) {
      deleteMediaJob(deps.db, mediaId);
      await rm(job.source_path, { force: true });
      return;
    }
    bumpMediaJobAttempts(deps.db, mediaId);
    try {
      const done = await finishAv(deps, row, job.source_path, undefined, { convert: true });
      if (mediaTestHooks.beforeBackgroundSave) await mediaTestHooks.beforeBackgroundSave();
      const generated = done.preview_key !== row.preview_key ? done.preview_key : null;
      let unused: string | null = null;
      deps.db.transaction(() => {
        // A thumbnail uploaded while the video was processed wins over the generated frame, and
        // its size in meta stays.
        const current = findMediaRow(deps.db, mediaId);
        const keepGenerated = generated !== null && current?.preview_key === null;
        if (generated !== null && !keepGenerated) unused = generated;
        const meta = JSON.parse(done.meta) as Record<string, unknown>;
        const currentSmall = current ? (JSON.parse(current.meta) as Record<string, unknown>).small : undefined;
        if (!keepGenerated) {
          if (currentSmall === undefined) delete meta.small;
          else meta.small = currentSmall;
        }
        updateMediaRow(deps.db, mediaId, {
          type: done.type,
          file_key: done.file_key,
          file_content_type: done.file_content_type,
          file_size: done.file_size,
          meta: JSON.stringify(meta),
          ...(keepGenerated ? { preview_key: generated, blurhash: done.blurhash } : {}),
          processing: 'done',
          updated_at: done.updated_at,
        });
        deleteMediaJob(deps.db, mediaId);
      });
      if (unused) await mediaStorage(deps).remove([unused]);
      // Deleted meanwhile: the row is gone and the moved files must go too.
      if (!findMediaRow(deps.db, mediaId)) await mediaStorage(deps).remove([done.file_key, generated]);
    } catch (err) {
      // A file that cannot be read will not read better next time; anything else is retried.
      const permanent = err instanceof ApiError || job.attempts + 1 >= MAX_ATTEMPTS;
      if (!permanent) throw err;
      // The file goes first: once the row says failed, nothing of the upload is left but the row.
      await rm(job.source_path, { force: true });
      deps.db.transaction(() => {
        updateMediaRow(deps.db, mediaId, { processing: 'failed', updated_at: now() });
        deleteMediaJob(deps.db, mediaId);
      });
    }
  } finally {
    inFlight.delete(mediaId);
  }
}

/** Starts processing an upload on the next turn of the event loop, after the answer went out. */
export function startBackgroundJob(deps: Deps, mediaId: string): void {
  setImmediate(() => {
    runMediaJob(deps, mediaId).catch((err: unknown) => console.error(`media job ${mediaId} failed`, err));
  });
}

/**
 * Scheduler task: starts the waiting uploads that nothing is processing (those accepted before a
 * restart, or retried after a passing failure). Does not wait for them.
 */
export function resumeMediaJobs(deps: Deps): void {
  const inFlight = runningSet(deps);
  for (const job of listMediaJobs(deps.db, 20)) {
    if (!inFlight.has(job.media_id)) startBackgroundJob(deps, job.media_id);
  }
}
