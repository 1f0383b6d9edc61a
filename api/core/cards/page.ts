import { Parser } from 'htmlparser2';

/**
 * Reads what a link preview needs from an HTML page: OpenGraph (and Twitter card) properties, the
 * title, the language, and the oEmbed discovery link. Nothing of the page is kept as HTML.
 */

/** What a page says about itself. */
export interface PageInfo {
  title: string;
  description: string;
  image: string | null;
  imageWidth: number;
  imageHeight: number;
  siteName: string;
  author: string;
  language: string | null;
  publishedAt: number | null;
  /** The oEmbed endpoint the page advertises (JSON only). */
  oembedUrl: string | null;
  /** og:type, e.g. "article", "video.other". */
  type: string;
}

/** Decodes a page's bytes using the charset of the HTTP header or of a `<meta charset>`, else UTF-8. */
export function decodeHtml(body: Buffer, headerCharset: string | null): string {
  let label = headerCharset;
  if (!label) {
    const head = body.subarray(0, 2048).toString('latin1');
    label = /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1] ?? null;
  }
  try {
    return new TextDecoder(label ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function positiveInt(value: string | undefined): number {
  const n = Number.parseInt(value ?? '', 10);
  return Number.isFinite(n) && n > 0 && n < 100_000 ? n : 0;
}

/** Collapses whitespace and trims to `max` characters. */
export function cleanText(value: string | undefined, max: number): string {
  const text = (value ?? '').replace(/\s+/g, ' ').trim();
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

/** Parses a page; relative URLs (image, oEmbed) are resolved against `pageUrl`. */
export function parsePage(html: string, pageUrl: string): PageInfo {
  const meta = new Map<string, string>();
  let title = '';
  let inTitle = false;
  let language: string | null = null;
  let oembed: string | null = null;
  let done = false;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (done) return;
        if (name === 'html' && attrs.lang) language = attrs.lang;
        else if (name === 'title') inTitle = true;
        else if (name === 'meta') {
          const key = (attrs.property ?? attrs.name ?? attrs.itemprop ?? '').toLowerCase().trim();
          const content = attrs.content;
          // The first value of a property wins, as OpenGraph readers take it.
          if (key && content !== undefined && !meta.has(key)) meta.set(key, content);
        } else if (name === 'link') {
          const rel = (attrs.rel ?? '').toLowerCase().split(/\s+/);
          const type = (attrs.type ?? '').toLowerCase();
          if (rel.includes('alternate') && (type === 'application/json+oembed' || type === 'text/json+oembed') && attrs.href && !oembed) oembed = attrs.href;
        } else if (name === 'body') {
          // Everything a preview needs is in the head; the body is not read.
          done = true;
        }
      },
      ontext(text) {
        if (inTitle && !done) title += text;
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();

  const resolveUrl = (value: string | undefined): string | null => {
    if (!value) return null;
    try {
      const url = new URL(value.trim(), pageUrl);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
    } catch {
      return null;
    }
  };
  const get = (...keys: string[]) => keys.map((k) => meta.get(k)).find((v) => v !== undefined && v.trim() !== '');
  const published = Date.parse(get('article:published_time', 'og:article:published_time', 'datepublished') ?? '');
  return {
    title: cleanText(get('og:title', 'twitter:title') ?? title, 300),
    description: cleanText(get('og:description', 'twitter:description', 'description'), 1000),
    image: resolveUrl(get('og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src')),
    imageWidth: positiveInt(get('og:image:width')),
    imageHeight: positiveInt(get('og:image:height')),
    siteName: cleanText(get('og:site_name', 'application-name'), 200),
    author: cleanText(get('article:author', 'author', 'twitter:creator'), 200),
    language: language ? cleanText(language, 10).toLowerCase().split('-')[0] || null : null,
    publishedAt: Number.isFinite(published) ? published : null,
    oembedUrl: resolveUrl(oembed ?? undefined),
    type: (get('og:type') ?? '').toLowerCase(),
  };
}
