import DOMPurify from 'dompurify';
import { localMediaUrl } from '../media/local';

/**
 * The second line of defence for remote HTML: the instance sanitized it on the way in, and it is
 * sanitized again here before it touches the DOM, down to what Mastodon's own HTML uses (text
 * formatting, paragraphs, lists, quotes, code and links). Links keep only http(s) and mailto
 * targets and always open outside the app, without a referrer or an opener.
 */

const ALLOWED_TAGS = ['p', 'br', 'a', 'span', 'strong', 'b', 'em', 'i', 'u', 's', 'del', 'sub', 'sup', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
const ALLOWED_ATTR = ['href', 'rel', 'class', 'lang', 'title', 'start', 'reversed', 'value', 'translate'];
/** Mastodon's microformat classes, the only ones kept (they drive how mentions and links look). */
const KEPT_CLASSES = new Set(['mention', 'hashtag', 'u-url', 'h-card', 'invisible', 'ellipsis', 'quote-inline', 'status-link']);

const purifier = DOMPurify(window);
purifier.addHook('afterSanitizeAttributes', (node) => {
  if (node instanceof HTMLAnchorElement) {
    const href = node.getAttribute('href') ?? '';
    if (!/^(https?:|mailto:)/i.test(href)) node.removeAttribute('href');
    node.setAttribute('rel', 'nofollow noopener noreferrer');
    node.setAttribute('target', '_blank');
  }
  if (node instanceof Element && node.hasAttribute('class')) {
    const kept = (node.getAttribute('class') ?? '').split(/\s+/).filter((c) => KEPT_CLASSES.has(c));
    if (kept.length) node.setAttribute('class', kept.join(' '));
    else node.removeAttribute('class');
  }
});

/** A custom emoji as the API gives it. */
export interface EmojiLike {
  shortcode: string;
  url: string;
  staticUrl: string;
}

/** Replaces `:shortcode:` in the text nodes under `root` with the emoji's image. */
function emojifyTree(root: DocumentFragment | Element, emojis: readonly EmojiLike[], animate: boolean): void {
  if (emojis.length === 0) return;
  const byCode = new Map(emojis.map((e) => [e.shortcode, e]));
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) texts.push(n as Text);
  for (const text of texts) {
    const value = text.data;
    const re = /:([a-zA-Z0-9_]{2,}):/g;
    let last = 0;
    let match: RegExpExecArray | null;
    const parts: Node[] = [];
    while ((match = re.exec(value))) {
      const emoji = byCode.get(match[1] ?? '');
      // An emoji whose picture is not here yet stays as its :shortcode: text.
      if (!emoji || !localMediaUrl(animate ? emoji.url : emoji.staticUrl)) continue;
      if (match.index > last) parts.push(document.createTextNode(value.slice(last, match.index)));
      parts.push(emojiImage(emoji, animate));
      last = match.index + match[0].length;
    }
    if (parts.length === 0) continue;
    if (last < value.length) parts.push(document.createTextNode(value.slice(last)));
    text.replaceWith(...parts);
  }
}

function emojiImage(emoji: EmojiLike, animate: boolean): HTMLImageElement {
  const img = document.createElement('img');
  img.className = 'custom-emoji';
  img.alt = `:${emoji.shortcode}:`;
  img.title = `:${emoji.shortcode}:`;
  img.src = animate ? emoji.url : emoji.staticUrl;
  img.draggable = false;
  return img;
}

/** Sanitizes remote HTML and puts custom emojis in; returns HTML safe to set as innerHTML. */
export function sanitizeHtml(html: string, emojis: readonly EmojiLike[] = [], animate = true): string {
  const fragment = purifier.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
  emojifyTree(fragment, emojis, animate);
  const holder = document.createElement('div');
  holder.append(fragment);
  return holder.innerHTML;
}

/** The plain text of remote HTML (for labels, previews and notifications). */
export function htmlToText(html: string): string {
  const fragment = purifier.sanitize(html.replace(/<br\s*\/?>/gi, '\n').replace(/<\/p>/gi, '\n\n'), { ALLOWED_TAGS: [], RETURN_DOM_FRAGMENT: true });
  return (fragment.textContent ?? '').trim();
}
