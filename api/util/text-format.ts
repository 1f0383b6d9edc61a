/**
 * A small, safe plain text → HTML formatter for what local people type into their profile: the
 * bio (paragraphs, line breaks, links) and profile field values (one line, links with rel="me").
 * Everything that is not a recognised http(s) URL is HTML-escaped, so the output never carries
 * markup the person did not mean.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for use in HTML element content and in double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

// A candidate URL: scheme, then anything up to whitespace or a character that cannot be part of
// a URL in running text. Trailing punctuation is trimmed afterwards.
const URL_CANDIDATE = /https?:\/\/[^\s<>"'`]+/gi;
const TRAILING_PUNCTUATION = /[.,:;!?*_~]+$/;
const PAIRS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

/** Longest part of a link's text shown before it is cut with an ellipsis, as Mastodon shows links. */
const DISPLAY_LIMIT = 30;

/**
 * Trims what running text usually puts after a URL: sentence punctuation, and a closing bracket
 * that has no opening partner inside the URL (`(see https://x.example/a)`).
 */
function trimUrl(candidate: string): string {
  let url = candidate;
  for (;;) {
    const before = url;
    url = url.replace(TRAILING_PUNCTUATION, '');
    const last = url.at(-1);
    if (last && PAIRS[last]) {
      const open = PAIRS[last];
      const opens = url.split(open).length - 1;
      const closes = url.split(last).length - 1;
      if (closes > opens) url = url.slice(0, -1);
    }
    if (url === before) return url;
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const parsed = new URL(value);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * One link in Mastodon's shape: the scheme (and `www.`) hidden, the first 30 characters shown,
 * the rest hidden behind an ellipsis, so clients that style `.invisible` and `.ellipsis` show
 * short links while the full URL stays copyable.
 */
function linkHtml(url: string, relMe: boolean): string {
  const prefix = /^https?:\/\/(?:www\.)?/i.exec(url)?.[0] ?? '';
  const rest = url.slice(prefix.length);
  const shown = rest.slice(0, DISPLAY_LIMIT);
  const hidden = rest.slice(DISPLAY_LIMIT);
  const rel = relMe ? 'me nofollow noopener noreferrer' : 'nofollow noopener noreferrer';
  return (
    `<a href="${escapeHtml(url)}" target="_blank" rel="${rel}">` +
    `<span class="invisible">${escapeHtml(prefix)}</span>` +
    `<span class="${hidden ? 'ellipsis' : ''}">${escapeHtml(shown)}</span>` +
    `<span class="invisible">${escapeHtml(hidden)}</span></a>`
  );
}

/** Escapes a piece of text and turns the http(s) URLs in it into links. */
export function linkify(text: string, options: { relMe?: boolean } = {}): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(URL_CANDIDATE)) {
    const start = match.index;
    const url = trimUrl(match[0]);
    // A URL glued to a word (`foohttp://…`) is not a link, as in Mastodon.
    if (start > 0 && /[\p{L}\p{N}_/]/u.test(text[start - 1] ?? '')) continue;
    if (!isHttpUrl(url)) continue;
    out += escapeHtml(text.slice(last, start)) + linkHtml(url, options.relMe ?? false);
    last = start + url.length;
  }
  return out + escapeHtml(text.slice(last));
}

/**
 * Formats a multi-line text (a bio): blank lines separate `<p>` paragraphs, single line breaks
 * become `<br />`, URLs become links. Empty or blank text gives an empty string.
 */
export function formatPlainText(text: string): string {
  const normalized = text.replace(/\r\n?/g, '\n').trim();
  if (!normalized) return '';
  return normalized
    .split(/\n[ \t]*\n+/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph.length > 0)
    .map((paragraph) => `<p>${paragraph.split('\n').map((line) => linkify(line)).join('<br />')}</p>`)
    .join('');
}

/**
 * Formats a profile field value: one line (no paragraphs), URLs linked with rel="me" so that the
 * linked page can be verified as belonging to the account.
 */
export function formatFieldValue(text: string): string {
  return linkify(text.replace(/\r?\n/g, ' ').trim(), { relMe: true });
}
