import { crc32, deflateSync } from 'node:zlib';

/**
 * The default instance thumbnail, served by the instance itself until an administrator uploads
 * one: a warm gradient (ember orange to deep red) drawn as a PNG at start-up, so no binary asset
 * has to ship with the server.
 */
export const DEFAULT_THUMBNAIL_PATH = '/instance/thumbnail.png';
const WIDTH = 1200;
const HEIGHT = 630;

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function draw(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(WIDTH, 0);
  header.writeUInt32BE(HEIGHT, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const rowBytes = 1 + WIDTH * 3;
  const raw = Buffer.alloc(rowBytes * HEIGHT);
  const top = [0xf6, 0xa0, 0x4d];
  const bottom = [0xb3, 0x34, 0x24];
  for (let y = 0; y < HEIGHT; y++) {
    const t = y / (HEIGHT - 1);
    const rgb = top.map((c, i) => Math.round(c + ((bottom[i] ?? c) - c) * t));
    const row = y * rowBytes; // filter byte 0 (none) stays 0
    for (let x = 0; x < WIDTH; x++) raw.set(rgb, row + 1 + x * 3);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

let cached: Buffer | null = null;

/** The default thumbnail's PNG bytes (drawn once). */
export function defaultThumbnailPng(): Buffer {
  cached ??= draw();
  return cached;
}
