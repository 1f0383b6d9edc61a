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

/** How links are written: statuses mark them `translate="no"`; profile field links carry rel="me". */
export interface LinkStyle {
  /** Adds `me` to rel, so the linked page can verify the profile (profile field values). */
  relMe?: boolean;
  /** Adds `translate="no"` (status texts). */
  translate?: boolean;
}

const STATUS_LINKS: LinkStyle = { translate: true };
const BIO_LINKS: LinkStyle = {};
const FIELD_LINKS: LinkStyle = { relMe: true };

/**
 * A link as Mastodon renders it: the scheme (and www.) hidden, the first 30 characters shown, the
 * rest hidden behind an ellipsis class that clients style.
 */
export function linkHtml(url: string, style: LinkStyle = STATUS_LINKS): string {
  const prefix = DISPLAY_PREFIX.exec(url)?.[0] ?? '';
  const rest = url.slice(prefix.length);
  const shown = rest.slice(0, DISPLAY_MAX);
  const hidden = rest.slice(DISPLAY_MAX);
  const rel = style.relMe ? 'me nofollow noopener noreferrer' : 'nofollow noopener noreferrer';
  return (
    `<a href="${escapeHtml(url)}" target="_blank" rel="${rel}"${style.translate ? ' translate="no"' : ''}>` +
    `<span class="invisible">${escapeHtml(prefix)}</span>` +
    `<span class="${hidden ? 'ellipsis' : ''}">${escapeHtml(shown)}</span>` +
    `<span class="invisible">${escapeHtml(hidden)}</span></a>`
  );
}

/** One entity as HTML; with `links` null, mentions and hashtags stay plain (escaped) text. */
function entityHtml(text: string, e: TextEntity, links: FormatLinks | null, style: LinkStyle): string {
  const raw = text.slice(e.start, e.end);
  switch (e.kind) {
    case 'url':
      return linkHtml(e.url, style);
    case 'mention': {
      const target = links?.mention(e.username, e.domain);
      if (!target) return escapeHtml(raw);
      return `<span class="h-card" translate="no"><a href="${escapeHtml(target.url)}" class="u-url mention">@<span>${escapeHtml(target.username)}</span></a></span>`;
    }
    case 'hashtag':
      if (!links) return escapeHtml(raw);
      return `<a href="${escapeHtml(links.tag(e.name))}" class="mention hashtag" rel="tag">#<span>${escapeHtml(e.name)}</span></a>`;
  }
}

/** Escapes `text` and renders its entities (found on this same text) in place. */
function renderEntities(text: string, entities: TextEntity[], links: FormatLinks | null, style: LinkStyle): string {
  let html = '';
  let pos = 0;
  for (const e of entities) {
    html += escapeHtml(text.slice(pos, e.start));
    html += entityHtml(text, e, links, style);
    pos = e.end;
  }
  return html + escapeHtml(text.slice(pos));
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
  const html = renderEntities(normalized, list, links, STATUS_LINKS);
  return paragraphs(html.replace(/^\n+|\n+$/g, ''));
}

/**
 * Renders a local account's bio as Mastodon does: escaped text, links, mentions of known accounts
 * and hashtags; paragraphs on blank lines (blank lines may hold spaces), `<br />` within, the
 * whole text and each paragraph trimmed. Custom emojis stay shortcodes. Blank text gives ''.
 */
export function formatBioHtml(text: string, links: FormatLinks): string {
  const normalized = text.replace(/\r\n?/g, '\n').trim();
  if (!normalized) return '';
  return normalized
    .split(/\n[ \t]*\n+/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph.length > 0)
    .map((paragraph) => `<p>${paragraph.split('\n').map((line) => renderEntities(line, extractEntities(line), links, BIO_LINKS)).join('<br />')}</p>`)
    .join('');
}

/**
 * Renders a profile field value: one line (line breaks become spaces), links with rel="me" so the
 * linked page can verify the profile. Mentions and hashtags are linked only when `links` is given.
 */
export function formatFieldHtml(text: string, links: FormatLinks | null = null): string {
  const line = text.replace(/\r?\n/g, ' ').trim();
  return renderEntities(line, extractEntities(line), links, FIELD_LINKS);
}
