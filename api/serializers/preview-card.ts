import type { PreviewCardRow } from '../db/repos/preview-cards.js';
import { isoTime } from '../util/clock.js';
import type { Uris } from '../util/uris.js';

/** PreviewCardAuthor: who wrote the linked page (no fediverse account is resolved yet). */
export interface MastodonPreviewCardAuthor {
  name: string;
  url: string;
  account: null;
}

/** Mastodon's PreviewCard entity. */
export interface MastodonPreviewCard {
  url: string;
  title: string;
  description: string;
  language: string | null;
  type: PreviewCardRow['type'];
  authors: MastodonPreviewCardAuthor[];
  author_name: string;
  author_url: string;
  provider_name: string;
  provider_url: string;
  /** A sanitized, sandboxed player iframe, or ''. */
  html: string;
  width: number;
  height: number;
  image: string | null;
  image_description: string;
  embed_url: string;
  blurhash: string | null;
  published_at: string | null;
}

/** The PreviewCard entity of a card row; the image is the copy this instance stored. */
export function toMastodonPreviewCard(row: PreviewCardRow, uris: Uris): MastodonPreviewCard {
  return {
    url: row.url,
    title: row.title,
    description: row.description,
    language: row.language,
    type: row.type,
    authors: row.author_name || row.author_url ? [{ name: row.author_name, url: row.author_url, account: null }] : [],
    author_name: row.author_name,
    author_url: row.author_url,
    provider_name: row.provider_name,
    provider_url: row.provider_url,
    html: row.html,
    width: row.width,
    height: row.height,
    image: row.image_key ? uris.fileUrl(row.image_key) : null,
    image_description: '',
    embed_url: row.embed_url,
    blurhash: row.blurhash,
    published_at: row.published_at === null ? null : isoTime(row.published_at),
  };
}
