import type { Sharp } from 'sharp';
import { blurhashOf } from './blurhash.js';
import type { DetectedType } from './detect.js';
import { loadSharp } from './sharp.js';

/**
 * Image processing with sharp (libvips): decoding is checked strictly (a truncated file is an
 * error), the EXIF orientation is applied, every piece of metadata (EXIF with GPS, XMP, IPTC,
 * comments, ICC after conversion to sRGB) is dropped, and the sizes Mastodon serves are made.
 * Work runs one image at a time (see `imageSlot`), so that concurrent uploads cannot multiply
 * the memory a large picture needs.
 */

/** Why an image was refused. */
export class ImageError extends Error {
  constructor(
    readonly reason: 'invalid' | 'dimensions',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ImageError';
  }
}

/** One stored rendition of an image. */
export interface ImageVariant {
  data: Buffer;
  width: number;
  height: number;
  ext: string;
  mime: string;
}

/** What an image is, read from its header. */
export interface ImageInfo {
  /** Width and height as displayed (orientation applied), of one frame. */
  width: number;
  height: number;
  animated: boolean;
  hasAlpha: boolean;
}

// ---- one image at a time ----

let busy = false;
const waiting: (() => void)[] = [];

/** Runs heavy image work one at a time in this process, in arrival order. */
export async function imageSlot<T>(work: () => Promise<T>): Promise<T> {
  if (busy) await new Promise<void>((resolve) => waiting.push(resolve));
  busy = true;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else busy = false;
  }
}

// ---- reading ----

/** Strict decoding: truncated or corrupt pixel data fails instead of being padded with grey. */
const STRICT = { failOn: 'truncated' } as const;

/** Reads an image's header: displayed size of a frame, animation, transparency. */
export async function inspectImage(input: Buffer | string): Promise<ImageInfo> {
  const sharp = await loadSharp();
  try {
    const meta = await sharp(input, { ...STRICT, animated: true }).metadata();
    const pages = meta.pages ?? 1;
    const frameHeight = pages > 1 ? (meta.pageHeight ?? meta.height) : meta.height;
    const oriented = pages > 1 ? { width: meta.width, height: frameHeight } : meta.autoOrient;
    if (!oriented.width || !oriented.height) throw new Error('no dimensions');
    return { width: oriented.width, height: oriented.height, animated: pages > 1, hasAlpha: meta.hasAlpha };
  } catch (err) {
    if (err instanceof ImageError) throw err;
    throw new ImageError('invalid', 'File could not be read as an image', { cause: err });
  }
}

/** The size that fits `pixels` (width × height) keeping the aspect ratio; never enlarges. */
export function fitArea(width: number, height: number, pixels: number): { width: number; height: number } {
  if (width * height <= pixels) return { width, height };
  const scale = Math.sqrt(pixels / (width * height));
  // Rounded down, so the area never exceeds the limit.
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
}

// ---- writing ----

type Format = 'jpeg' | 'png' | 'webp' | 'gif';

const MIME: Record<Format, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif' };

/**
 * The format an upload is stored in: JPEG, PNG and WebP stay what they are; a GIF stays a GIF only
 * while animated (a still GIF becomes PNG, as Mastodon does); AVIF is stored as JPEG, or PNG when
 * transparent, because encoding AVIF takes seconds.
 */
function storedFormat(type: DetectedType, info: ImageInfo, keepAnimation: boolean): Format {
  switch (type.container) {
    case 'jpeg':
      return 'jpeg';
    case 'webp':
      return 'webp';
    case 'gif':
      return info.animated && keepAnimation ? 'gif' : 'png';
    case 'png':
      return 'png';
    default:
      return info.hasAlpha ? 'png' : 'jpeg';
  }
}

function encode(pipeline: Sharp, format: Format, quality: number): Sharp {
  switch (format) {
    case 'jpeg':
      // Baseline, without Huffman optimisation: both would hold every coefficient of the picture
      // in memory at once (some 80 MB for 12 megapixels) and double the encoding time, for files
      // only a few percent smaller. This way a picture streams through in strips.
      return pipeline.jpeg({ quality, optimiseCoding: false });
    case 'png':
      return pipeline.png({ compressionLevel: 6 });
    case 'webp':
      return pipeline.webp({ quality, effort: 2 });
    case 'gif':
      return pipeline.gif({ effort: 4 });
  }
}

async function render(pipeline: Sharp, format: Format, quality: number): Promise<ImageVariant> {
  try {
    const { data, info } = await encode(pipeline, format, quality).toBuffer({ resolveWithObject: true });
    // An animation's height is reported for all frames stacked; one frame is what clients show.
    const height = info.pageHeight ?? info.height;
    return { data, width: info.width, height, ext: format === 'jpeg' ? 'jpeg' : format, mime: MIME[format] };
  } catch (err) {
    throw new ImageError('invalid', 'File could not be processed as an image', { cause: err });
  }
}

/** Options of a media attachment image. */
export interface AttachmentImageOptions {
  /** Largest area of the stored original; larger pictures are scaled down. */
  originalPixels: number;
  /** Area of the `small` preview (Mastodon's 640×360). */
  smallPixels: number;
}

/** A processed media attachment image. */
export interface ProcessedImage {
  original: ImageVariant;
  small: ImageVariant;
  blurhash: string;
  animated: boolean;
}

/**
 * Processes an uploaded image: the original (orientation applied, metadata dropped, scaled down
 * to `originalPixels` when larger; animations kept frame by frame), the `small` preview (first
 * frame, at most `smallPixels`), and a 4×4 blurhash of the preview.
 */
export async function processAttachmentImage(input: string | Buffer, type: DetectedType, info: ImageInfo, options: AttachmentImageOptions): Promise<ProcessedImage> {
  const sharp = await loadSharp();
  const format = storedFormat(type, info, true);
  const target = fitArea(info.width, info.height, options.originalPixels);
  const resize = target.width !== info.width || target.height !== info.height;
  let original: ImageVariant;
  if (info.animated && (format === 'gif' || format === 'webp')) {
    const pipeline = sharp(input, { ...STRICT, animated: true });
    original = await render(resize ? pipeline.resize(target.width, target.height, { fit: 'fill' }) : pipeline, format, 90);
  } else {
    const pipeline = sharp(input, { ...STRICT, autoOrient: true });
    original = await render(resize ? pipeline.resize(target.width, target.height, { fit: 'fill' }) : pipeline, format, 90);
  }
  const smallSize = fitArea(info.width, info.height, options.smallPixels);
  const smallFormat: Format = format === 'gif' ? 'png' : format;
  // The preview is made from the upload, not the re-encoded original: one lossy step, not two,
  // and JPEG decoding can then shrink on load, which is what keeps large photos fast.
  const small = await render(sharp(input, { ...STRICT, autoOrient: true, pages: 1 }).resize(smallSize.width, smallSize.height, { fit: 'fill' }), smallFormat, 80);
  const blurhash = await blurhashOf(small.data);
  return { original, small, blurhash, animated: info.animated && format !== 'png' };
}

/**
 * A still image fitted inside an area (video and audio thumbnails, preview card images): first
 * frame, orientation applied, metadata dropped, never enlarged; with its blurhash.
 */
export async function processStill(input: string | Buffer, type: DetectedType, info: ImageInfo, box: { pixels?: number; width?: number; height?: number }): Promise<{ image: ImageVariant; blurhash: string }> {
  const sharp = await loadSharp();
  const format = storedFormat(type, info, false);
  const pipeline = sharp(input, { ...STRICT, autoOrient: true, pages: 1 });
  let sized: Sharp;
  if (box.pixels !== undefined) {
    const size = fitArea(info.width, info.height, box.pixels);
    sized = pipeline.resize(size.width, size.height, { fit: 'fill' });
  } else {
    sized = pipeline.resize(box.width ?? null, box.height ?? null, { fit: 'inside', withoutEnlargement: true });
  }
  const image = await render(sized, format === 'gif' ? 'png' : format, 85);
  return { image, blurhash: await blurhashOf(image.data) };
}

/**
 * An avatar or header: cropped to fill `width`×`height` (centred, as Mastodon's `#` geometry);
 * an animation stays animated and gets a still first frame for `*_static`.
 */
export async function processProfileImage(input: string | Buffer, type: DetectedType, info: ImageInfo, size: { width: number; height: number }): Promise<{ image: ImageVariant; still: ImageVariant | null }> {
  const sharp = await loadSharp();
  const format = storedFormat(type, info, true);
  // Never enlarge a small picture: it is cropped to the target's aspect ratio at its own size.
  const k = Math.min(1, info.width / size.width, info.height / size.height);
  const width = Math.max(1, Math.round(size.width * k));
  const height = Math.max(1, Math.round(size.height * k));
  const options = { fit: 'cover' as const, position: 'centre' as const };
  if (info.animated && (format === 'gif' || format === 'webp')) {
    const image = await render(sharp(input, { ...STRICT, animated: true }).resize(width, height, options), format, 90);
    const still = await render(sharp(input, { ...STRICT, pages: 1 }).resize(width, height, options), 'png', 90);
    return { image, still };
  }
  const image = await render(sharp(input, { ...STRICT, autoOrient: true, pages: 1 }).resize(width, height, options), format, 90);
  return { image, still: null };
}

/** A custom emoji's still first frame, as PNG (`static_url`). */
export async function emojiStill(input: Buffer): Promise<ImageVariant> {
  const sharp = await loadSharp();
  return render(sharp(input, { ...STRICT, pages: 1 }), 'png', 90);
}
