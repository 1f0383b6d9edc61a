import { crc32, deflateSync } from 'node:zlib';

/**
 * A minimal PNG encoder for the pictures the server draws itself (default avatar, header and
 * instance thumbnail), so no binary asset ships with the server and no image library has to be
 * loaded at start-up. 8-bit greyscale or RGB, no filtering, no interlacing.
 */

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Bytes per pixel and the IHDR colour type of each supported colour mode. */
const COLOUR = { grey: { channels: 1, type: 0 }, rgb: { channels: 3, type: 2 } } as const;

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * Encodes a `width`×`height` image. `fillRow(y, pixels)` writes row `y` into `pixels` (1 byte per
 * pixel for 'grey', 3 for 'rgb'); rows are stored unfiltered and deflated at the highest level.
 */
export function encodePng(width: number, height: number, colour: keyof typeof COLOUR, fillRow: (y: number, pixels: Buffer) => void): Buffer {
  const { channels, type } = COLOUR[colour];
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = type;
  const rowBytes = 1 + width * channels;
  const raw = Buffer.alloc(rowBytes * height);
  // Each row starts with its filter byte, 0 (none), which Buffer.alloc already wrote.
  for (let y = 0; y < height; y++) fillRow(y, raw.subarray(y * rowBytes + 1, (y + 1) * rowBytes));
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

/** Encodes an 8-bit greyscale image given as a function of (x, y) → grey level. */
export function greyscalePng(width: number, height: number, pixel: (x: number, y: number) => number): Buffer {
  return encodePng(width, height, 'grey', (y, row) => {
    for (let x = 0; x < width; x++) row[x] = pixel(x, y);
  });
}
