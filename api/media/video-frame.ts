import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { DetectedType } from './detect.js';
import { imageSlot, inspectImage, processStill, type ImageVariant } from './image.js';

/**
 * A still frame of a video, for the preview of a video or GIFV that came without one: ffmpeg
 * decodes the first frame to PNG. ffmpeg is the binary of the `@ffmpeg-installer/<platform>`
 * package when it is installed; without it there is no frame (the attachment keeps no preview,
 * as before). Remote files are untrusted: the demuxer is fixed from the detected container, only
 * local files may be opened (no playlist or concat input can reach the network), one thread,
 * a deadline and a cap on the output.
 */

/** Time ffmpeg gets for one frame. */
const FRAME_TIMEOUT_MS = 30_000;
/** Bytes of PNG accepted (a 3840×2160 frame is well under this). */
const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/** ffmpeg's demuxer for the containers we read video from (GIF: animated ones are converted). */
const DEMUXERS: Partial<Record<DetectedType['container'], string>> = { isobmff: 'mov', webm: 'matroska', ogg: 'ogg', gif: 'gif' };

/** The ffmpeg demuxer for a detected type, or null when we do not read video from it. */
export function demuxerOf(type: DetectedType): string | null {
  return DEMUXERS[type.container] ?? null;
}

/** Test-only switches; null (off) in production. */
export const videoFrameTestHooks: { ffmpegPath: string | null } = { ffmpegPath: null };

let located: string | null | undefined;

/**
 * The path of a file that the desktop app's packaging unpacked beside its archive (electron-builder's
 * asarUnpack, build/electron-builder.yml): in the packaged app, modules resolve inside `app.asar`,
 * but an executable can only be spawned from `app.asar.unpacked`. Other paths come back unchanged.
 */
export function outsideAsar(path: string): string {
  return path.replace(/([\\/])app\.asar([\\/])/, '$1app.asar.unpacked$2');
}

/** The ffmpeg binary, or null when none is installed. */
export function ffmpegPath(): string | null {
  if (videoFrameTestHooks.ffmpegPath !== null) return videoFrameTestHooks.ffmpegPath || null;
  if (located !== undefined) return located;
  located = null;
  try {
    const require = createRequire(import.meta.url);
    const dir = dirname(require.resolve(`@ffmpeg-installer/${process.platform}-${process.arch}/package.json`));
    const binary = outsideAsar(join(dir, process.platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg'));
    if (existsSync(binary)) located = binary;
  } catch {
    // Not installed: no frames.
  }
  return located;
}

/**
 * The first frame of the video at `path` as PNG bytes, or null when there is no ffmpeg, the
 * container is not one we read video from, or ffmpeg fails, runs too long or says too much.
 */
export async function extractVideoFrame(path: string, type: DetectedType): Promise<Buffer | null> {
  const binary = ffmpegPath();
  const demuxer = demuxerOf(type);
  if (!binary || !demuxer) return null;
  const args = [
    '-nostdin', '-hide_banner', '-loglevel', 'error', '-threads', '1',
    '-protocol_whitelist', 'file', '-f', demuxer, '-i', `file:${path}`,
    '-map', '0:v:0', '-frames:v', '1', '-an', '-sn', '-dn', '-threads', '1',
    '-f', 'image2pipe', '-c:v', 'png', 'pipe:1',
  ];
  return new Promise((resolve) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const fail = () => {
      failed = true;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(fail, FRAME_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FRAME_BYTES) return fail();
      chunks.push(chunk);
    });
    child.on('error', () => {
      clearTimeout(timer);
      resolve(null);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(!failed && code === 0 && size > 0 ? Buffer.concat(chunks) : null);
    });
  });
}

const PNG: DetectedType = { kind: 'image', mime: 'image/png', ext: 'png', container: 'png' };

/**
 * A preview picture of a video: its first frame, scaled to at most `pixels`, stored as PNG (as
 * Mastodon stores video previews), with a blurhash. Null when no frame could be had or read.
 */
export async function videoStill(path: string, type: DetectedType, pixels: number): Promise<{ image: ImageVariant; blurhash: string } | null> {
  const frame = await extractVideoFrame(path, type);
  if (!frame) return null;
  try {
    const info = await inspectImage(frame);
    return await imageSlot(() => processStill(frame, PNG, info, { pixels }));
  } catch {
    return null;
  }
}
