import { greyscalePng } from '../util/png.js';
import { MISSING_AVATAR_PATH, MISSING_HEADER_PATH } from '../serializers/account.js';
import type { Routes } from './routes.js';

/**
 * The pictures shown for accounts without an avatar or header, at the paths Mastodon uses
 * (`/avatars/original/missing.png`, `/headers/original/missing.png`). They are drawn as small
 * greyscale PNGs when first asked for (not at start-up: drawing them takes tens of milliseconds),
 * so no binary asset has to ship with the server.
 */

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
  for (const [path, picture] of [
    [MISSING_AVATAR_PATH, 'avatar'],
    [MISSING_HEADER_PATH, 'header'],
  ] as const) {
    r.get(path, 'none', [], (ctx) => {
      ctx.res.setHeader('Cache-Control', 'public, max-age=86400');
      ctx.res.type('image/png').send(defaults()[picture]);
    });
  }
}
