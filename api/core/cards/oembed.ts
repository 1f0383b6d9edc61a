import { Parser } from 'htmlparser2';
import { escapeHtml } from '../../util/text/index.js';
import { cleanText } from './page.js';

/**
 * oEmbed answers, read defensively: only the fields a card uses, and of the embed HTML only one
 * iframe from a known video or audio provider survives, rebuilt from its checked attributes with a
 * sandbox. Scripts, other elements and other attributes never reach a client.
 */

/** Hosts whose players may be embedded in a card. */
export const IFRAME_HOSTS: ReadonlySet<string> = new Set([
  'www.youtube.com',
  'youtube.com',
  'www.youtube-nocookie.com',
  'player.vimeo.com',
  'w.soundcloud.com',
  'open.spotify.com',
  'embed.spotify.com',
  'bandcamp.com',
  'www.dailymotion.com',
  'geo.dailymotion.com',
  'player.twitch.tv',
  'clips.twitch.tv',
  'embed.ted.com',
  'archive.org',
  'streamable.com',
]);

/** The sandbox every card iframe carries. */
export const IFRAME_SANDBOX = 'allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox';

/** What a card takes from an oEmbed answer. */
export interface OEmbedInfo {
  type: 'photo' | 'video' | 'rich' | 'link';
  title: string;
  authorName: string;
  authorUrl: string;
  providerName: string;
  providerUrl: string;
  /** The sanitized player iframe ('' when none is acceptable). */
  html: string;
  width: number;
  height: number;
  /** A photo's own URL. */
  url: string | null;
  thumbnailUrl: string | null;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

function dimension(value: unknown): number {
  const n = typeof value === 'number' ? value : Number.parseInt(str(value), 10);
  return Number.isFinite(n) && n > 0 && n < 100_000 ? Math.round(n) : 0;
}

function httpUrl(value: unknown, base: string): string | null {
  const text = str(value).trim();
  if (!text) return null;
  try {
    const url = new URL(text, base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}

/**
 * The one acceptable iframe of an embed's HTML, rebuilt: an https `src` on an allowed host,
 * numeric width and height, `allowfullscreen`, and the sandbox. '' when there is none.
 */
export function sanitizeEmbedHtml(html: string): string {
  const first: { iframe: Record<string, string> | null } = { iframe: null };
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (first.iframe === null && name === 'iframe') first.iframe = attrs;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  const attrs = first.iframe;
  if (!attrs) return '';
  let src: URL;
  try {
    src = new URL((attrs.src ?? '').trim());
  } catch {
    return '';
  }
  if (src.protocol !== 'https:' || !IFRAME_HOSTS.has(src.hostname.toLowerCase()) || src.username || src.password) return '';
  const width = dimension(attrs.width);
  const height = dimension(attrs.height);
  return (
    `<iframe src="${escapeHtml(src.toString())}"` +
    (width ? ` width="${width}"` : '') +
    (height ? ` height="${height}"` : '') +
    ` frameborder="0" allowfullscreen="true" sandbox="${IFRAME_SANDBOX}"></iframe>`
  );
}

/** Reads an oEmbed JSON answer (null for anything that is not one). */
export function parseOEmbed(body: string, base: string): OEmbedInfo | null {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return null;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
  const o = data as Record<string, unknown>;
  const type = str(o.type);
  if (type !== 'photo' && type !== 'video' && type !== 'rich' && type !== 'link') return null;
  return {
    type,
    title: cleanText(str(o.title), 300),
    authorName: cleanText(str(o.author_name), 200),
    authorUrl: httpUrl(o.author_url, base) ?? '',
    providerName: cleanText(str(o.provider_name), 200),
    providerUrl: httpUrl(o.provider_url, base) ?? '',
    html: type === 'video' || type === 'rich' ? sanitizeEmbedHtml(str(o.html)) : '',
    width: dimension(o.width),
    height: dimension(o.height),
    url: httpUrl(o.url, base),
    thumbnailUrl: httpUrl(o.thumbnail_url, base),
  };
}
