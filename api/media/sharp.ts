import type sharpModule from 'sharp';

type SharpFactory = typeof sharpModule;

let loaded: Promise<SharpFactory> | null = null;

/**
 * The image library, loaded on first use: libvips is large, and an instance that is only read
 * should not carry it. Decoded images are not cached (every upload is a different picture) and
 * libvips works on one thread per image, which bounds the memory a large picture takes.
 */
export function loadSharp(): Promise<SharpFactory> {
  loaded ??= import('sharp').then((m) => {
    const sharp = m.default;
    sharp.cache(false);
    sharp.concurrency(1);
    return sharp;
  });
  return loaded;
}
