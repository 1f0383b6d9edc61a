import { extractEntities, type TextEntity } from './entities.js';
import { escapeHtml } from './escape.js';

/** How the formatter links mentions and hashtags; core resolves accounts before formatting. */
export interface FormatLinks {
  /** The profile URL and the username to show for a mention, or null to leave it as plain text (unknown account). */
  mention(username: string, domain: string | null): { url: string; username: string } | null;
  /** The URL of a hashtag's page. */
  tag(name: string): string;
}

const DISPLAY_PREFIX = /^(https?:\/\/(www\.)?|xmpp:)/i;
const DISPLAY_MAX = 30;

/**
 * A link as Mastodon renders it: the scheme (and www.) hidden, the first 30 characters shown, the
 * rest hidden behind an ellipsis class that clients style.
 */
export function linkHtml(url: string): string {
  const prefix = DISPLAY_PREFIX.exec(url)?.[0] ?? '';
  const rest = url.slice(prefix.length);
  const shown = rest.slice(0, DISPLAY_MAX);
  const hidden = rest.slice(DISPLAY_MAX);
  return (
    `<a href="${escapeHtml(url)}" target="_blank" rel="nofollow noopener noreferrer" translate="no">` +
    `<span class="invisible">${escapeHtml(prefix)}</span>` +
    `<span class="${hidden ? 'ellipsis' : ''}">${escapeHtml(shown)}</span>` +
    `<span class="invisible">${escapeHtml(hidden)}</span></a>`
  );
}

function entityHtml(text: string, e: TextEntity, links: FormatLinks): string {
  const raw = text.slice(e.start, e.end);
  switch (e.kind) {
    case 'url':
      return linkHtml(e.url);
    case 'mention': {
      const target = links.mention(e.username, e.domain);
      if (!target) return escapeHtml(raw);
      return `<span class="h-card" translate="no"><a href="${escapeHtml(target.url)}" class="u-url mention">@<span>${escapeHtml(target.username)}</span></a></span>`;
    }
    case 'hashtag':
      return `<a href="${escapeHtml(links.tag(e.name))}" class="mention hashtag" rel="tag">#<span>${escapeHtml(e.name)}</span></a>`;
  }
}

/** Plain text → HTML with line breaks: paragraphs on blank lines, `<br />` within (Rails' simple_format). */
function paragraphs(html: string): string {
  return html
    .split(/\n{2,}/)
    .map((p) => `<p>${p.replace(/\n/g, '<br />')}</p>`)
    .join('');
}

/**
 * Renders a status text typed by a local user as Mastodon's HTML: escaped text, links,
 * mentions of known accounts and hashtags, paragraphs and line breaks. Blank text gives ''.
 */
export function formatStatusHtml(text: string, links: FormatLinks, entities: TextEntity[] = extractEntities(text)): string {
  const normalized = text.replace(/\r\n?/g, '\n');
  if (normalized.trim() === '') return '';
  // Entities were found on the original text; recompute on the normalized one if it differs.
  const list = normalized === text ? entities : extractEntities(normalized);
  let html = '';
  let pos = 0;
  for (const e of list) {
    html += escapeHtml(normalized.slice(pos, e.start));
    html += entityHtml(normalized, e, links);
    pos = e.end;
  }
  html += escapeHtml(normalized.slice(pos));
  return paragraphs(html.replace(/^\n+|\n+$/g, ''));
}
