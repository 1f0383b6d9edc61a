import { stat } from 'node:fs/promises';
import { detectFileType, type DetectedType, type MediaKind } from '../../media/detect.js';
import { ImageError, inspectImage, type ImageInfo } from '../../media/image.js';
import { ApiError } from '../../util/errors.js';
import { MEDIA_LIMITS } from '../instance/limits.js';
import { mediaTestHooks } from './storage.js';

/** The validation rules of uploads, with Mastodon's error messages. All of them write nothing. */

/** A file received in a request (spooled to disk by the body parser). */
export interface IncomingFile {
  path: string;
  size: number;
}

/** Mastodon's answer to a file it does not accept. */
export function invalidFile(cause?: unknown): ApiError {
  return new ApiError(422, 'Validation failed: File content type is invalid, File is invalid', { cause });
}

/** A description within the limit, '' becoming null (422 otherwise). */
export function checkDescription(value: string | null | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  if ([...value].length > MEDIA_LIMITS.description_limit) {
    throw new ApiError(422, `Validation failed: Description is too long (maximum is ${MEDIA_LIMITS.description_limit} characters)`);
  }
  return value;
}

/** A focal point "x,y" with both in [-1, 1]; '' clears it (null). 422 otherwise. */
export function parseFocus(value: string | null | undefined): { x: number; y: number } | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value.trim() === '') return null;
  const parts = value.split(',').map((p) => p.trim());
  const [x, y] = parts.map(Number);
  const ok = parts.length === 2 && parts.every((p) => /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(p));
  if (!ok || x === undefined || y === undefined || !Number.isFinite(x) || !Number.isFinite(y) || Math.abs(x) > 1 || Math.abs(y) > 1) {
    throw new ApiError(422, 'Validation failed: Focus is invalid');
  }
  return { x, y };
}

/** Mastodon's human file size ("16 MB"). */
function humanSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KB`;
  return `${bytes} Bytes`;
}

/** The largest upload of a kind (images 16 MiB; video and audio 99 MiB). */
export function sizeLimitFor(kind: MediaKind): number {
  return mediaTestHooks.sizeLimit ?? (kind === 'image' ? MEDIA_LIMITS.image_size_limit : MEDIA_LIMITS.video_size_limit);
}

/** Refuses a file above `limit` bytes, naming the attribute as Mastodon does. */
export function checkSize(size: number, limit: number, attribute = 'File'): void {
  if (size > limit) throw new ApiError(422, `Validation failed: ${attribute} file size must be less than ${humanSize(limit)}`);
}

/** Detects a file's type from its bytes (422 when it is nothing we accept). */
export async function detectOrRefuse(file: IncomingFile): Promise<DetectedType> {
  let type: DetectedType | null;
  try {
    // The spooled size is what counts; an empty file has no type.
    const s = await stat(file.path);
    type = s.size > 0 ? await detectFileType(file.path) : null;
  } catch (err) {
    throw invalidFile(err);
  }
  if (!type) throw invalidFile();
  return type;
}

/**
 * Reads an image's header: 422 for anything unreadable, or larger than `maxPixels` (by default
 * image_matrix_limit; attachments pass a higher cap and are scaled down).
 */
export async function inspectOrRefuse(input: string | Buffer, maxPixels: number = MEDIA_LIMITS.image_matrix_limit): Promise<ImageInfo> {
  let info: ImageInfo;
  try {
    info = await inspectImage(input);
  } catch (err) {
    throw invalidFile(err);
  }
  if (info.width * info.height > maxPixels) {
    throw new ApiError(422, `Validation failed: ${info.width}x${info.height} images are not supported`);
  }
  return info;
}

/** Turns an image library failure into Mastodon's 422, keeping anything else as it is. */
export function asUploadError(err: unknown): unknown {
  return err instanceof ImageError ? invalidFile(err) : err;
}
