/**
 * Finds the entities of a status text as Mastodon does: links (with a scheme), @mentions
 * (`@user`, `@user@domain`) and #hashtags, without overlaps (a link wins over what is inside it).
 */

/** A link, mention or hashtag found in a text, with its position in UTF-16 code units. */
export type TextEntity =
  | { kind: 'url'; start: number; end: number; url: string }
  | { kind: 'mention'; start: number; end: number; username: string; domain: string | null }
  | { kind: 'hashtag'; start: number; end: number; name: string };

// Schemes Mastodon links; anything else stays text.
const URL_RE = /(?<![\p{L}\p{N}_/@.-])(?:https?:\/\/|dat:\/\/|dweb:\/\/|ipfs:\/\/|ipns:\/\/|ssb:\/\/|gopher:\/\/|gemini:\/\/|xmpp:|magnet:\?)[^\s<>"\u3000]+/giu;

// Account::MENTION_RE: not after a word character, '=' or '/'; usernames may hold inner dots and
// dashes. The domain part also accepts a port, which local-only instances have in their handles.
const MENTION_RE = /(?<![=/\p{L}\p{N}_])@([a-z0-9_]+(?:[.-]+[a-z0-9_]+)*)(?:@([\p{L}\p{N}_]+(?:[.-]+[\p{L}\p{N}_]+)*(?::\d{1,5})?))?/giu;

// Tag::HASHTAG_RE: a '#' not after a word character, '=', '/' or ')'; the name holds letters,
// marks, digits, '_' and inner separators (middle dot, katakana middle dot, ZWNJ) and at least
// one letter.
const HASHTAG_RE = /(?<![=/)\p{L}\p{N}_])#([\p{L}\p{M}\p{N}_\u00B7\u30FB\u200C]+)/gu;
const SEPARATORS_AT_END = /[\u00B7\u30FB\u200C]+$/u;

const TRAILING_PUNCTUATION = /[.,:;!?'"…]+$/u;

/** Trims what a link cannot end with: sentence punctuation and closing brackets it did not open. */
function trimUrl(candidate: string): string {
  let url = candidate;
  for (;;) {
    const before = url;
    url = url.replace(TRAILING_PUNCTUATION, '');
    const last = url.at(-1);
    const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
    if (last && pairs[last]) {
      const open = pairs[last];
      const opens = url.split(open).length - 1;
      const closes = url.split(last).length - 1;
      if (closes > opens) url = url.slice(0, -1);
    }
    if (url === before) return url;
  }
}

function hasHost(url: string): boolean {
  if (/^(xmpp:|magnet:)/i.test(url)) return url.length > 7;
  const m = /^[a-z]+:\/\/([^/?#]+)/i.exec(url);
  return m !== null && /[\p{L}\p{N}]/u.test(m[1] ?? '');
}

/** Every entity of `text`, ordered by position, without overlaps. */
export function extractEntities(text: string): TextEntity[] {
  const found: TextEntity[] = [];
  for (const m of text.matchAll(URL_RE)) {
    const url = trimUrl(m[0]);
    if (!hasHost(url)) continue;
    found.push({ kind: 'url', start: m.index, end: m.index + url.length, url });
  }
  for (const m of text.matchAll(MENTION_RE)) {
    found.push({ kind: 'mention', start: m.index, end: m.index + m[0].length, username: m[1] ?? '', domain: m[2] ? m[2].toLowerCase() : null });
  }
  for (const m of text.matchAll(HASHTAG_RE)) {
    const name = (m[1] ?? '').replace(SEPARATORS_AT_END, '');
    // A hashtag needs a letter: '#123' is not one.
    if (!/\p{L}/u.test(name)) continue;
    found.push({ kind: 'hashtag', start: m.index, end: m.index + 1 + name.length, name });
  }
  // Links first, then by position: an entity overlapping one already kept is dropped.
  const priority = { url: 0, mention: 1, hashtag: 1 };
  found.sort((a, b) => priority[a.kind] - priority[b.kind] || a.start - b.start);
  const kept: TextEntity[] = [];
  for (const e of found) {
    if (kept.some((k) => e.start < k.end && k.start < e.end)) continue;
    kept.push(e);
  }
  return kept.sort((a, b) => a.start - b.start);
}

/** The normalized form of a hashtag name under which tags are stored: NFKC, lower case. */
export function normalizeTagName(name: string): string {
  return name.normalize('NFKC').toLowerCase();
}
