import { Parser } from 'htmlparser2';
import { escapeHtml } from './escape.js';

/**
 * The sanitizer for HTML that comes from other servers (status content, profile notes), after
 * Mastodon's: a small set of tags survives, links keep only safe schemes and get
 * rel="nofollow noopener noreferrer" and target="_blank"; other elements are unwrapped (their
 * text kept), and scripts, styles and embedded content are dropped with what is inside them.
 */

const ALLOWED = new Set([
  'p', 'br', 'span', 'a', 'del', 's', 'pre', 'code', 'em', 'strong', 'b', 'i', 'u', 'sub', 'sup',
  'ul', 'ol', 'li', 'blockquote', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ruby', 'rt', 'rp',
]);
const VOID = new Set(['br']);
const DROP_WITH_CONTENT = new Set(['script', 'style', 'template', 'iframe', 'object', 'embed', 'noscript', 'svg', 'math', 'head', 'title', 'textarea', 'select']);
const SAFE_SCHEMES = /^(https?|dat|dweb|ipfs|ipns|ssb|gopher|xmpp|magnet|gemini):/i;
// Classes clients rely on (microformats and Mastodon's link shortening); others are removed.
const CLASS_ALLOWED = /^(h-\S+|p-\S+|u-\S+|dt-\S+|e-\S+|mention|hashtag|ellipsis|invisible)$/;

function cleanClass(value: string): string {
  return value
    .split(/\s+/)
    .filter((c) => CLASS_ALLOWED.test(c))
    .join(' ');
}

function attributesFor(name: string, attrs: Record<string, string>): string {
  const out: string[] = [];
  if (attrs.class !== undefined) {
    const cls = cleanClass(attrs.class);
    if (cls) out.push(`class="${escapeHtml(cls)}"`);
  }
  if (name === 'a') {
    const href = (attrs.href ?? '').trim();
    if (href && SAFE_SCHEMES.test(href)) out.unshift(`href="${escapeHtml(href)}"`);
    out.push('rel="nofollow noopener noreferrer"', 'target="_blank"');
  }
  if ((name === 'ol') && attrs.start !== undefined && /^-?\d+$/.test(attrs.start)) out.push(`start="${attrs.start}"`);
  if (name === 'ol' && attrs.reversed !== undefined) out.push('reversed');
  if (name === 'li' && attrs.value !== undefined && /^-?\d+$/.test(attrs.value)) out.push(`value="${attrs.value}"`);
  return out.length ? ` ${out.join(' ')}` : '';
}

/** Sanitizes remote HTML; the result is safe to embed in a page and to return in the API. */
export function sanitizeRemoteHtml(html: string): string {
  let out = '';
  let dropping = 0;
  const open: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        // Inside a dropped element every nested element is counted, so its end is found.
        if (dropping > 0 || DROP_WITH_CONTENT.has(name)) {
          if (!VOID.has(name)) dropping++;
          return;
        }
        if (!ALLOWED.has(name)) return;
        out += `<${name}${attributesFor(name, attrs)}${VOID.has(name) ? ' /' : ''}>`;
        if (!VOID.has(name)) open.push(name);
      },
      ontext(text) {
        if (dropping === 0) out += escapeHtml(text);
      },
      onclosetag(name) {
        if (dropping > 0) {
          if (!VOID.has(name)) dropping--;
          return;
        }
        if (!ALLOWED.has(name) || VOID.has(name)) return;
        const i = open.lastIndexOf(name);
        if (i < 0) return;
        // Close whatever was left open inside it, so the output stays well nested.
        while (open.length > i) out += `</${open.pop()}>`;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  while (open.length) out += `</${open.pop()}>`;
  return out;
}
