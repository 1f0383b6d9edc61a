import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { TestClient, TestResponse } from '../helpers/client.js';
import type { TestInstance } from '../helpers/instance.js';

/** The ffmpeg binary of the @ffmpeg-installer package (tests make their audio and video with it). */
export const FFMPEG = fileURLToPath(new URL('../../node_modules/@ffmpeg-installer/linux-x64/ffmpeg', import.meta.url));

/** A multipart body with a file (and optional fields and more files). */
export function form(files: Record<string, { data: Buffer; type?: string; name?: string }>, fields: Record<string, string> = {}): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  for (const [k, f] of Object.entries(files)) fd.append(k, new Blob([new Uint8Array(f.data)], { type: f.type ?? 'application/octet-stream' }), f.name ?? 'upload.bin');
  return fd;
}

/** Uploads a file through POST /api/v{1,2}/media. */
export function upload(client: TestClient, data: Buffer, options: { version?: 1 | 2; type?: string; name?: string; fields?: Record<string, string>; thumbnail?: Buffer } = {}): Promise<TestResponse> {
  const files: Record<string, { data: Buffer; type?: string; name?: string }> = { file: { data, type: options.type ?? 'application/octet-stream', name: options.name ?? 'upload' } };
  if (options.thumbnail) files.thumbnail = { data: options.thumbnail, type: 'image/png', name: 'thumb.png' };
  return client.post(`/api/v${options.version ?? 1}/media`, undefined, { multipart: form(files, options.fields ?? {}) });
}

/** A noisy-gradient test picture (noise makes encoders work and blurhashes differ). */
export async function picture(width: number, height: number, format: 'png' | 'jpeg' | 'webp', extra: (s: sharp.Sharp) => sharp.Sharp = (s) => s): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = Math.floor((x / width) * 255);
      raw[i + 1] = Math.floor((y / height) * 255);
      raw[i + 2] = (x * 7 + y * 13) % 256;
    }
  }
  const base = sharp(raw, { raw: { width, height, channels: 3 } });
  return extra(base.toFormat(format)).toBuffer();
}

/** A JPEG taken "sideways" (EXIF orientation 6) with a GPS position and a camera comment. */
export function jpegWithExif(width: number, height: number): Promise<Buffer> {
  return picture(width, height, 'jpeg', (s) =>
    s.withMetadata({ orientation: 6 }).withExifMerge({
      IFD0: { Copyright: 'secret owner', Make: 'TestCam' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 0/1' },
    }),
  );
}

/** A three-frame animated GIF. */
export async function animatedGif(width: number, height: number): Promise<Buffer> {
  const frames = [
    { r: 255, g: 0, b: 0 },
    { r: 0, g: 255, b: 0 },
    { r: 0, g: 0, b: 255 },
  ];
  const stacked = Buffer.concat(
    await Promise.all(frames.map((background) => sharp({ create: { width, height, channels: 3, background } }).raw().toBuffer())),
  );
  return sharp(stacked, { raw: { width, height: height * frames.length, channels: 3, pageHeight: height } })
    .gif({ loop: 0, delay: [100, 100, 100] })
    .toBuffer();
}

/** The tags of a TIFF-structured EXIF block's first IFD (0x8825 is the GPS pointer). */
export function exifTags(exif: Buffer | undefined): number[] {
  if (!exif) return [];
  const start = exif.indexOf('Exif\0\0') === 0 ? 6 : 0;
  const tiff = exif.subarray(start);
  const le = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (o: number) => (le ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
  const u32 = (o: number) => (le ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o));
  const ifd = u32(4);
  const count = u16(ifd);
  return Array.from({ length: count }, (_, i) => u16(ifd + 2 + i * 12));
}

/** Runs ffmpeg with arguments, writing `out` in a temporary directory; returns its bytes. */
export function ffmpeg(args: string[], ext: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-ffmpeg-'));
  const out = join(dir, `out.${ext}`);
  try {
    execFileSync(FFMPEG, ['-hide_banner', '-loglevel', 'error', '-y', ...args, out], { timeout: 30_000 });
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A one-second 320×240 H.264 video at 25 fps, with a 440 Hz tone unless `silent`. */
export function mp4(options: { silent?: boolean; seconds?: number; size?: string; rate?: number } = {}): Buffer {
  const seconds = String(options.seconds ?? 1);
  const video = ['-f', 'lavfi', '-i', `testsrc=size=${options.size ?? '320x240'}:rate=${options.rate ?? 25}`];
  const audio = options.silent ? [] : ['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100'];
  return ffmpeg([...video, ...audio, '-t', seconds, '-c:v', 'libx264', '-pix_fmt', 'yuv420p', ...(options.silent ? ['-an'] : ['-c:a', 'aac', '-shortest']), '-movflags', '+faststart'], 'mp4');
}

/** A two-second tone in an audio format. */
export function tone(ext: 'wav' | 'flac' | 'm4a' | 'ogg' | 'mp3'): Buffer {
  const codec: Record<string, string[]> = { wav: ['-c:a', 'pcm_s16le'], flac: ['-c:a', 'flac'], m4a: ['-c:a', 'aac'], ogg: ['-c:a', 'libvorbis'], mp3: ['-c:a', 'libmp3lame'] };
  return ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100', '-t', '2', '-ac', '2', ...(codec[ext] ?? [])], ext);
}

/** The storage key of a `/system/…` URL. */
export function keyOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\/system\//, ''));
}

/** The path on disk of a served file. */
export function fileOnDisk(inst: TestInstance, url: string): string {
  return join(inst.dataDir, 'media', keyOf(url));
}

/** Fetches a served file's bytes (expects 200). */
export async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** Every file under the instance's media storage and staging directories. */
export function storedFiles(inst: TestInstance): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(path);
    }
  };
  walk(join(inst.dataDir, 'media'));
  walk(join(inst.dataDir, 'media-staging'));
  return out.sort();
}

/** Rows of a table matching a condition. */
export function count(inst: TestInstance, table: string, where = '1', params: Record<string, string | number> = {}): number {
  return inst.deps.db.query<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get(params)?.n ?? 0;
}

/** Polls `check` until it returns a value that is not undefined, or fails after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The top-level boxes of an MP4 (ISO BMFF) file, in order: type, offset and size. */
export function mp4Boxes(bytes: Buffer): { type: string; start: number; size: number }[] {
  const out: { type: string; start: number; size: number }[] = [];
  let pos = 0;
  while (pos + 8 <= bytes.length) {
    let size = bytes.readUInt32BE(pos);
    if (size === 1) size = Number(bytes.readBigUInt64BE(pos + 8));
    else if (size === 0) size = bytes.length - pos;
    if (size < 8) break;
    out.push({ type: bytes.toString('latin1', pos + 4, pos + 8), start: pos, size });
    pos += size;
  }
  return out;
}

/** The payload of an MP4's first top-level box of a type (its media data, for `mdat`). */
export function mp4Box(bytes: Buffer, type: string): Buffer {
  const box = mp4Boxes(bytes).find((b) => b.type === type);
  if (!box) throw new Error(`no ${type} box`);
  return bytes.subarray(box.start + 8, box.start + box.size);
}

/** The codec of each track of an MP4, as its sample description names it (avc1, mp4a, mp4v…). */
export function mp4Codecs(bytes: Buffer): string[] {
  const moov = mp4Box(bytes, 'moov');
  const codecs: string[] = [];
  // Every `stsd` box: version and flags, entry count, then the first entry's size and format.
  for (let i = moov.indexOf('stsd'); i >= 0; i = moov.indexOf('stsd', i + 4)) codecs.push(moov.toString('latin1', i + 16, i + 20));
  return codecs;
}

/** What ffmpeg says of a file's streams (its report for `ffmpeg -i`). */
export function ffmpegReport(bytes: Buffer, ext: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-ffmpeg-'));
  const file = join(dir, `in.${ext}`);
  try {
    writeFileSync(file, bytes);
    // Without an output ffmpeg exits with an error after its report on the input.
    const run = spawnSync(FFMPEG, ['-hide_banner', '-i', file], { encoding: 'utf8', timeout: 30_000 });
    return run.stderr;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
