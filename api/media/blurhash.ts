import { encode, isBlurhashValid } from 'blurhash';
import { loadSharp } from './sharp.js';

/** Components of the blurhashes we generate, as Mastodon makes them: 4 across, 4 down. */
export const BLURHASH_COMPONENTS = { x: 4, y: 4 } as const;

/** Most components per axis accepted in a blurhash received from elsewhere. */
export const MAX_RECEIVED_BLURHASH_COMPONENTS = 5;

/** The side of the thumbnail the hash is computed from: enough for 4×4 components, cheap to encode. */
const SAMPLE_SIZE = 32;

/** Computes a 4×4 blurhash of an image (encoded bytes or a file path); the first frame of an animation. */
export async function blurhashOf(input: Buffer | string): Promise<string> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(input, { pages: 1 })
    .resize(SAMPLE_SIZE, SAMPLE_SIZE, { fit: 'inside' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return encode(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height, BLURHASH_COMPONENTS.x, BLURHASH_COMPONENTS.y);
}

/** The number of components (x, y) a blurhash declares in its first character. */
export function blurhashComponents(hash: string): { x: number; y: number } | null {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~';
  const flag = alphabet.indexOf(hash[0] ?? '');
  if (flag < 0) return null;
  return { x: (flag % 9) + 1, y: Math.floor(flag / 9) + 1 };
}

/**
 * Whether a blurhash received from another server (or a client) may be stored: well formed, and
 * at most 5×5 components, which keeps decoding it cheap for every client that shows it.
 */
export function isAcceptableBlurhash(value: unknown): value is string {
  if (typeof value !== 'string' || value.length < 6 || value.length > 4 + 2 * 5 * 5) return false;
  if (!isBlurhashValid(value).result) return false;
  const c = blurhashComponents(value);
  return c !== null && c.x <= MAX_RECEIVED_BLURHASH_COMPONENTS && c.y <= MAX_RECEIVED_BLURHASH_COMPONENTS;
}
