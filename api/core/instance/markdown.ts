/**
 * A small Markdown renderer for the texts an administrator writes (privacy policy, terms of
 * service, about page, the closed-registrations message), which Mastodon stores as Markdown and
 * serves as HTML. It is safe by construction: raw HTML in the source is escaped, never passed
 * through, link targets are limited to http(s) and mailto, and images are not rendered (their
 * source stays visible as text), as Mastodon's renderer is configured for these texts.
 *
 * Supported: paragraphs (line breaks kept; two trailing spaces make a <br>), ATX and setext
 * headings, fenced code blocks, block quotes, ordered and unordered (nested) lists, horizontal
 * rules, and inline code, emphasis, strong emphasis, links and autolinks, backslash escapes.
 */

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const SAFE_URL = /^(https?:\/\/|mailto:)/i;
const LINK_TARGET = /^\(\s*<?([^\s()<>]*)>?(?:\s+"([^"]*)")?\s*\)/;
const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/;

/** Renders Markdown source to HTML; empty input gives an empty string. */
export function renderMarkdown(source: string): string {
  const lines = source.replace(/\r\n?/g, '\n').replace(/\t/g, '    ').split('\n');
  const blocks = renderBlocks(lines, false);
  return blocks.length ? `${blocks.join('\n\n')}\n` : '';
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)\s*$/;
const ATX = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
const HR = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])\s+(.*)$/;
const SETEXT = /^ {0,3}(=+|-+)\s*$/;

function isBlank(line: string): boolean {
  return line.trim() === '';
}

/** True when a line begins a block that ends a paragraph. */
function startsBlock(line: string): boolean {
  return FENCE.test(line) || ATX.test(line) || HR.test(line) || QUOTE.test(line) || ITEM.test(line);
}

/** Renders a run of lines as blocks; in a tight list item, paragraphs are not wrapped in <p>. */
function renderBlocks(lines: string[], tight: boolean): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (isBlank(line)) {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] ?? '```';
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? '').trim().startsWith(marker)) body.push(lines[i++] ?? '');
      i++; // the closing fence (or the end of the text)
      out.push(`<pre><code>${escapeHtml(body.join('\n'))}${body.length ? '\n' : ''}</code></pre>`);
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      const level = (atx[1] ?? '#').length;
      out.push(`<h${level}>${renderInline(atx[2] ?? '')}</h${level}>`);
      i++;
      continue;
    }
    if (HR.test(line)) {
      out.push('<hr>');
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const inner: string[] = [];
      while (i < lines.length && !isBlank(lines[i] ?? '')) {
        const q = QUOTE.exec(lines[i] ?? '');
        inner.push(q ? (q[1] ?? '') : (lines[i] ?? ''));
        i++;
      }
      out.push(`<blockquote>\n${renderBlocks(inner, false).join('\n\n')}\n</blockquote>`);
      continue;
    }
    if (ITEM.test(line)) {
      i = renderList(lines, i, out);
      continue;
    }
    // A paragraph: lines up to a blank line or the start of another block. An underline of
    // `=` or `-` turns it into a (setext) heading instead.
    const para: string[] = [];
    let heading = 0;
    while (i < lines.length && !isBlank(lines[i] ?? '')) {
      const current = lines[i] ?? '';
      const setext = SETEXT.exec(current);
      if (setext && para.length > 0) {
        heading = (setext[1] ?? '=').startsWith('=') ? 1 : 2;
        i++;
        break;
      }
      if (para.length > 0 && startsBlock(current)) break;
      para.push(current);
      i++;
    }
    const text = renderInline(para.map((l) => l.replace(/^ +/, '')).join('\n'));
    if (heading) out.push(`<h${heading}>${text}</h${heading}>`);
    else out.push(tight ? text : `<p>${text}</p>`);
  }
  return out;
}

/** Renders the list that starts at `start`; returns the index of the first line after it. */
function renderList(lines: string[], start: number, out: string[]): number {
  const first = ITEM.exec(lines[start] ?? '');
  const ordered = first ? /\d/.test(first[2] ?? '') : false;
  const items: string[][] = [];
  let loose = false;
  let i = start;
  while (i < lines.length) {
    const m = ITEM.exec(lines[i] ?? '');
    if (!m || /\d/.test(m[2] ?? '') !== ordered) break;
    const indent = (m[1] ?? '').length + (m[2] ?? '').length + 1;
    const item = [m[3] ?? ''];
    i++;
    // The item continues with indented lines, and with blank lines followed by indented lines.
    while (i < lines.length) {
      const next = lines[i] ?? '';
      if (isBlank(next)) {
        const after = lines[i + 1];
        if (after !== undefined && /^ {2,}/.test(after)) {
          loose = true;
          item.push('');
          i++;
          continue;
        }
        break;
      }
      if (/^ {2,}/.test(next)) {
        item.push(next.slice(Math.min(indent, next.length - next.trimStart().length)));
        i++;
        continue;
      }
      if (ITEM.test(next) || startsBlock(next)) break;
      item.push(next); // a lazy continuation of the item's paragraph
      i++;
    }
    items.push(item);
    // A blank line between items makes the list loose (paragraphs inside <li> get <p>).
    if (i < lines.length && isBlank(lines[i] ?? '') && ITEM.test(lines[i + 1] ?? '')) {
      const m2 = ITEM.exec(lines[i + 1] ?? '');
      if (m2 && /\d/.test(m2[2] ?? '') === ordered) {
        loose = true;
        i++;
      }
    }
  }
  const tag = ordered ? 'ol' : 'ul';
  const startNumber = ordered ? Number.parseInt(first?.[2] ?? '1', 10) : 1;
  const open = ordered && startNumber !== 1 ? `<ol start="${startNumber}">` : `<${tag}>`;
  const body = items.map((item) => `<li>${renderBlocks(item, !loose).join('\n')}</li>`).join('\n');
  out.push(`${open}\n${body}\n</${tag}>`);
  return i;
}

/** Finds the closing `]` of a link text opened at `open`, allowing nested brackets. */
function closingBracket(text: string, open: number): number {
  let depth = 0;
  for (let j = open; j < text.length; j++) {
    const c = text[j];
    if (c === '\\') j++;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return j;
  }
  return -1;
}

/** Renders inline Markdown to HTML. */
function renderInline(text: string): string {
  let html = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? '';
    if (c === '\\' && PUNCTUATION.test(text[i + 1] ?? '')) {
      html += escapeHtml(text[i + 1] ?? '');
      i += 2;
      continue;
    }
    if (c === '\\' && text[i + 1] === '\n') {
      html += '<br>\n';
      i += 2;
      continue;
    }
    if (c === '`') {
      const run = /^`+/.exec(text.slice(i))?.[0] ?? '`';
      const end = text.indexOf(run, i + run.length);
      if (end > 0) {
        html += `<code>${escapeHtml(text.slice(i + run.length, end).trim())}</code>`;
        i = end + run.length;
        continue;
      }
      html += escapeHtml(run);
      i += run.length;
      continue;
    }
    if (c === '[' || (c === '!' && text[i + 1] === '[')) {
      const open = c === '!' ? i + 1 : i;
      const close = closingBracket(text, open);
      const target = close > 0 ? LINK_TARGET.exec(text.slice(close + 1)) : null;
      if (target && c === '!') {
        // Images are not rendered: their Markdown stays visible as text.
        html += escapeHtml(text.slice(i, close + 1 + target[0].length));
        i = close + 1 + target[0].length;
        continue;
      }
      if (target && SAFE_URL.test(target[1] ?? '')) {
        const title = target[2] ? ` title="${escapeHtml(target[2])}"` : '';
        html += `<a href="${escapeHtml(target[1] ?? '')}"${title}>${renderInline(text.slice(i + 1, close))}</a>`;
        i = close + 1 + target[0].length;
        continue;
      }
      if (target) {
        // An unsafe target (javascript:, data:…): keep the link text, drop the target.
        html += renderInline(text.slice(i + 1, close));
        i = close + 1 + target[0].length;
        continue;
      }
    }
    if (c === '<') {
      const auto = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i.exec(text.slice(i));
      if (auto) {
        const url = auto[1] ?? '';
        html += `<a href="${escapeHtml(url)}">${escapeHtml(url.replace(/^mailto:/i, ''))}</a>`;
        i += auto[0].length;
        continue;
      }
    }
    if (c === '*' || c === '_') {
      const emphasis = matchEmphasis(text, i, c);
      if (emphasis) {
        const tag = emphasis.strong ? 'strong' : 'em';
        html += `<${tag}>${renderInline(emphasis.inner)}</${tag}>`;
        i = emphasis.end;
        continue;
      }
      const run = text.slice(i).match(c === '*' ? /^\*+/ : /^_+/)?.[0] ?? c;
      html += escapeHtml(run);
      i += run.length;
      continue;
    }
    if (c === ' ' && text.startsWith('  \n', i)) {
      // Two or more trailing spaces make a hard line break.
      const spaces = /^ +\n/.exec(text.slice(i))?.[0] ?? '  \n';
      html += '<br>\n';
      i += spaces.length;
      continue;
    }
    html += escapeHtml(c);
    i++;
  }
  return html;
}

/**
 * Matches `*x*`, `**x**`, `_x_` or `__x__` starting at `at`: the opening run must be followed
 * by a non-space, the closing run preceded by one, and underscores only count at word edges
 * (so snake_case_names stay as they are).
 */
function matchEmphasis(text: string, at: number, marker: string): { inner: string; end: number; strong: boolean } | null {
  const runLength = /^(\*+|_+)/.exec(text.slice(at))?.[0].length ?? 1;
  const size = runLength >= 2 ? 2 : 1;
  const run = marker.repeat(size);
  const before = at > 0 ? (text[at - 1] ?? '') : '';
  if (marker === '_' && /[\p{L}\p{N}]/u.test(before)) return null;
  const afterOpen = text[at + size] ?? '';
  if (afterOpen === '' || /\s/.test(afterOpen)) return null;
  let j = at + size;
  while (j < text.length) {
    const close = text.indexOf(run, j);
    if (close < 0) return null;
    const prev = text[close - 1] ?? '';
    const next = text[close + size] ?? '';
    const edgeOk = marker === '*' || !/[\p{L}\p{N}]/u.test(next);
    // For single markers, skip the inside of a double run (`*a **b** c*`).
    if (close > at + size && !/\s/.test(prev) && prev !== '\\' && edgeOk && !(size === 1 && next === marker)) {
      return { inner: text.slice(at + size, close), end: close + size, strong: size === 2 };
    }
    j = close + (size === 1 && next === marker ? 2 : 1);
  }
  return null;
}
