/**
 * Counting a post's length as the instance does: every link counts as `urlLength` characters
 * (Mastodon's `characters_reserved_per_url`, 23), a mention of a remote account counts only its
 * local part (`@bob@example.com` counts as `@bob`), and an emoji made of several code points
 * counts once (grapheme clusters).
 */

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]}]/gi;
const REMOTE_MENTION = /(^|[^\p{L}\p{N}_/])(@[\p{L}\p{N}_]+(?:[.-]+[\p{L}\p{N}_]+)*)@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;

let segmenter: Intl.Segmenter | null = null;

/** Grapheme clusters in `text`. */
function graphemes(text: string): number {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let n = 0;
  for (const _ of segmenter.segment(text)) n++;
  return n;
}

/** The length of one text field (the post or its content warning) as the instance counts it. */
export function countableLength(text: string, urlLength = 23): number {
  if (!text) return 0;
  const placeholder = 'x'.repeat(urlLength);
  const shortened = text.replace(URL_PATTERN, placeholder).replace(REMOTE_MENTION, (_m, before: string, local: string) => `${before}${local}`);
  return graphemes(shortened);
}

/** Characters left for a post with this text and content warning (negative when over the limit). */
export function charactersLeft(text: string, spoilerText: string, max: number, urlLength = 23): number {
  return max - countableLength(text, urlLength) - countableLength(spoilerText, urlLength);
}
