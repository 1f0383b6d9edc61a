import { extractEntities } from './entities.js';

/** What one link counts for, whatever its length (Mastodon's characters_reserved_per_url). */
export const URL_PLACEHOLDER_LENGTH = 23;

// Made on first use, not at start-up: building it loads ICU's break-iteration data (some 50 ms
// of a start that should take under a second, and resident memory an idle server never needs).
let segmenter: Intl.Segmenter | null = null;

/** Grapheme clusters in `text` (an emoji with modifiers counts once, as Mastodon counts it). */
export function graphemeLength(text: string): number {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let n = 0;
  for (const _ of segmenter.segment(text)) n++;
  return n;
}

/**
 * The length of a status text as Mastodon counts it against the character limit: every link
 * counts as 23 characters and `@user@domain` counts as `@user`.
 */
export function countableLength(text: string): number {
  if (!text) return 0;
  let out = '';
  let pos = 0;
  for (const e of extractEntities(text)) {
    if (e.kind === 'hashtag') continue;
    out += text.slice(pos, e.start);
    out += e.kind === 'url' ? 'x'.repeat(URL_PLACEHOLDER_LENGTH) : `@${e.username}`;
    pos = e.end;
  }
  out += text.slice(pos);
  return graphemeLength(out);
}
