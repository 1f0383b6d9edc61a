import { encodePng } from '../../util/png.js';

/**
 * The default instance thumbnail, served by the instance itself until an administrator uploads
 * one: a warm gradient (ember orange to deep red) drawn as a PNG at start-up, so no binary asset
 * has to ship with the server.
 */
export const DEFAULT_THUMBNAIL_PATH = '/instance/thumbnail.png';
const WIDTH = 1200;
const HEIGHT = 630;

function draw(): Buffer {
  const top = [0xf6, 0xa0, 0x4d];
  const bottom = [0xb3, 0x34, 0x24];
  return encodePng(WIDTH, HEIGHT, 'rgb', (y, row) => {
    const t = y / (HEIGHT - 1);
    const rgb = top.map((c, i) => Math.round(c + ((bottom[i] ?? c) - c) * t));
    for (let x = 0; x < WIDTH; x++) row.set(rgb, x * 3);
  });
}

let cached: Buffer | null = null;

/** The default thumbnail's PNG bytes (drawn once). */
export function defaultThumbnailPng(): Buffer {
  cached ??= draw();
  return cached;
}
