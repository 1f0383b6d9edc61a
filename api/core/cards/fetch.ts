import type { PreviewCardRow } from '../../db/repos/preview-cards.js';
import { detectType } from '../../media/detect.js';
import { imageSlot, inspectImage, processStill } from '../../media/image.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import { FetchError, safeFetch, type SafeFetchOptions } from '../../util/safe-fetch.js';
import { HEARTH_VERSION } from '../../util/version.js';
import type { Deps } from '../deps.js';
import { MEDIA_LIMITS } from '../instance/limits.js';
import { mediaStorage } from '../media/storage.js';
import { parseOEmbed, type OEmbedInfo } from './oembed.js';
import { decodeHtml, parsePage } from './page.js';

/**
 * Building a preview card for a link: the page (HTML only), its oEmbed answer when it advertises
 * one, and its picture, each fetched with strict limits (see `CARD_LIMITS`) and never from a
 * private address unless the instance runs with `federationAllowLoopback` (tests).
 */

/** The limits of every request made for a card. */
export const CARD_LIMITS = {
  /** Total time of one request, redirects and body included. */
  timeoutMs: 10_000,
  /** Bytes of a page or an oEmbed answer. */
  pageBytes: 1024 * 1024,
  /** Bytes of a card picture. */
  imageBytes: 2 * 1024 * 1024,
  maxRedirects: 3,
  /** The box a card picture is fitted in. */
  imageSize: 640,
} as const;

/** Test-only: a shorter request time limit, so tests of slow servers stay fast. Null in production. */
export const cardTestHooks: { timeoutMs: number | null } = { timeoutMs: null };

function options(deps: Deps, accept: string, maxBytes: number): SafeFetchOptions {
  return {
    timeoutMs: cardTestHooks.timeoutMs ?? CARD_LIMITS.timeoutMs,
    maxBytes,
    maxRedirects: CARD_LIMITS.maxRedirects,
    allowPrivate: deps.config.federationAllowLoopback,
    accept,
    userAgent: `Hearth/${HEARTH_VERSION} (+${deps.uris.base})`,
  };
}

async function fetchOEmbed(deps: Deps, url: string): Promise<OEmbedInfo | null> {
  try {
    const res = await safeFetch(url, options(deps, 'application/json', CARD_LIMITS.pageBytes));
    return parseOEmbed(res.body.toString('utf8'), res.url);
  } catch {
    // A broken oEmbed endpoint leaves the OpenGraph data, which is enough for a card.
    return null;
  }
}

/** Downloads, checks and stores a card picture; null when it cannot be had. */
async function storeImage(deps: Deps, cardId: string, url: string): Promise<{ key: string; width: number; height: number; blurhash: string } | null> {
  try {
    const res = await safeFetch(url, options(deps, 'image/*', CARD_LIMITS.imageBytes));
    const type = detectType(res.body.subarray(0, 4096));
    if (!type || type.kind !== 'image') return null;
    const info = await inspectImage(res.body);
    if (info.width * info.height > MEDIA_LIMITS.image_matrix_limit) return null;
    const { image, blurhash } = await imageSlot(() => processStill(res.body, type, info, { width: CARD_LIMITS.imageSize, height: CARD_LIMITS.imageSize }));
    const storage = mediaStorage(deps);
    const key = storage.newKey('preview_cards/images', cardId, 'original', image.ext);
    await storage.write(key, image.data);
    return { key, width: image.width, height: image.height, blurhash };
  } catch {
    return null;
  }
}

/**
 * Fetches a link and builds its card (not saved). Null when the link is not an HTML page, cannot
 * be fetched within the limits, or says nothing worth a card (no title and no player).
 */
export async function fetchCard(deps: Deps, url: string): Promise<PreviewCardRow | null> {
  let page;
  try {
    page = await safeFetch(url, options(deps, 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1', CARD_LIMITS.pageBytes));
  } catch (err) {
    if (err instanceof FetchError) return null;
    throw err;
  }
  if (page.contentType !== 'text/html' && page.contentType !== 'application/xhtml+xml') return null;
  const info = parsePage(decodeHtml(page.body, page.charset), page.url);
  const oembed = info.oembedUrl ? await fetchOEmbed(deps, info.oembedUrl) : null;

  const at = now();
  const card: PreviewCardRow = {
    id: newId(at),
    url,
    title: oembed?.title || info.title,
    description: info.description,
    type: 'link',
    author_name: oembed?.authorName || info.author,
    author_url: oembed?.authorUrl ?? '',
    provider_name: oembed?.providerName || info.siteName,
    provider_url: oembed?.providerUrl ?? '',
    html: '',
    width: info.imageWidth,
    height: info.imageHeight,
    image_key: null,
    image_remote_url: oembed?.thumbnailUrl ?? info.image,
    embed_url: '',
    blurhash: null,
    language: info.language,
    published_at: info.publishedAt,
    created_at: at,
    updated_at: at,
  };
  // Mastodon's oEmbed rules: a photo needs its URL; a video needs a player (here: an allowed,
  // sandboxed iframe); rich embeds rely on scripts and are not taken.
  if (oembed?.type === 'photo' && oembed.url) {
    Object.assign(card, { type: 'photo', embed_url: oembed.url, width: oembed.width, height: oembed.height });
  } else if (oembed?.type === 'video' && oembed.html) {
    Object.assign(card, { type: 'video', html: oembed.html, width: oembed.width, height: oembed.height });
  }
  if (card.title === '' && card.html === '') return null;
  if (card.image_remote_url) {
    const image = await storeImage(deps, card.id, card.image_remote_url);
    if (image) {
      card.image_key = image.key;
      card.blurhash = image.blurhash;
      if (!card.width || !card.height) {
        card.width = image.width;
        card.height = image.height;
      }
    }
  }
  return card;
}
