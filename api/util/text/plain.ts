import { Parser } from 'htmlparser2';

const BLOCKS = new Set(['p', 'div', 'blockquote', 'li', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol']);
const SKIP = new Set(['script', 'style', 'template']);

/**
 * Plain text of status HTML (for search indexing, notifications and previews): tags removed,
 * entities decoded, `<br>` as a line break, paragraphs separated by a blank line, and the hidden
 * parts of shortened links kept so that URLs stay whole.
 */
export function htmlToPlainText(html: string): string {
  let out = '';
  let skipping = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (SKIP.has(name)) skipping++;
        else if (name === 'br') out += '\n';
        else if (BLOCKS.has(name) && out !== '' && !out.endsWith('\n\n')) out += out.endsWith('\n') ? '\n' : '\n\n';
      },
      ontext(text) {
        if (skipping === 0) out += text;
      },
      onclosetag(name) {
        if (SKIP.has(name)) skipping = Math.max(0, skipping - 1);
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return out.replace(/\n{3,}/g, '\n\n').trim();
}
