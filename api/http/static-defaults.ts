import { deflateSync } from 'node:zlib';
import { MISSING_AVATAR_PATH, MISSING_HEADER_PATH } from '../serializers/account.js';
import type { Routes } from './routes.js';

/**
 * The pictures shown for accounts without an avatar or header, at the paths Mastodon uses
 * (`/avatars/original/missing.png`, `/headers/original/missing.png`). They are drawn once at
 * start-up as small greyscale PNGs, so no binary asset has to ship with the server.
 */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** Encodes an 8-bit greyscale image given as a function of (x, y) → grey level. */
export function greyscalePng(width: number, height: number, pixel: (x: number, y: number) => number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // colour type: greyscale
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width + 1);
    raw[row] = 0; // filter: none
    for (let x = 0; x < width; x++) raw[row + 1 + x] = pixel(x, y);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A neutral silhouette (head and shoulders) on a light grey square. */
function drawAvatar(): Buffer {
  const size = 400;
  return greyscalePng(size, size, (x, y) => {
    const head = (x - 200) ** 2 + (y - 155) ** 2 <= 75 ** 2;
    const shoulders = ((x - 200) / 150) ** 2 + ((y - 400) / 150) ** 2 <= 1;
    return head || shoulders ? 0xf2 : 0xc8;
  });
}

/** A plain grey banner in Mastodon's header proportions. */
function drawHeader(): Buffer {
  return greyscalePng(1500, 500, () => 0xc8);
}

let images: { avatar: Buffer; header: Buffer } | null = null;

function defaults(): { avatar: Buffer; header: Buffer } {
  images ??= { avatar: drawAvatar(), header: drawHeader() };
  return images;
}

/** Registers the missing-avatar and missing-header pictures. */
export function register(r: Routes): void {
  const { avatar, header } = defaults();
  for (const [path, body] of [
    [MISSING_AVATAR_PATH, avatar],
    [MISSING_HEADER_PATH, header],
  ] as const) {
    r.get(path, 'none', [], (ctx) => {
      ctx.res.setHeader('Cache-Control', 'public, max-age=86400');
      ctx.res.type('image/png').send(body);
    });
  }
}
