#!/usr/bin/env node
// Lists the API methods documented in Mastodon's documentation: every method page's HTTP method,
// path template and page, for the route-coverage test (test/foundation/route-coverage.test.ts).
//
//   node scripts/list-mastodon-methods.mjs PATH/TO/documentation/content/en/methods [OUT]
//
// OUT defaults to test/fixtures/mastodon-methods.json. See test/fixtures/README.md for the source.
//
// A method is the first ```http block under a level-2 or level-3 heading whose first line is
// `METHOD /path`; later blocks under the same heading are example requests and are skipped, and so
// are blocks that show a full URL rather than a path. Query strings are dropped from the template.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const METHOD_LINE = /^(GET|POST|PUT|PATCH|DELETE)\s+(\/\S*)/;
const HEADING = /^(#{2,3})\s+(.*)$/;

/** Every Markdown file below `dir`, sorted, as paths relative to `dir` with `/` separators. */
function pages(dir, base = dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...pages(path, base));
    else if (name.endsWith('.md') && !name.startsWith('_')) out.push(relative(base, path).split(sep).join('/'));
  }
  return out;
}

/** The heading's text without Hugo shortcodes and its `{#anchor}`, and its anchor. */
function headingParts(text) {
  const anchor = /\{#([^}]+)\}\s*$/.exec(text)?.[1] ?? null;
  const title = text
    .replace(/\{#[^}]+\}\s*$/, '')
    .replace(/\{\{%[^%]*%\}\}/g, '')
    .trim();
  return { title, anchor };
}

/** The methods one page documents, in page order. */
export function methodsOfPage(markdown, page) {
  const lines = markdown.split(/\r?\n/);
  const out = [];
  let heading = null;
  let taken = false;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    const h = HEADING.exec(line);
    if (h) {
      heading = h[2];
      taken = false;
      continue;
    }
    if (line.trim() !== '```http' || heading === null || taken) continue;
    const first = (lines[i + 1] ?? '').trim();
    const m = METHOD_LINE.exec(first);
    if (!m) continue;
    taken = true;
    const { title, anchor } = headingParts(heading);
    out.push({
      method: m[1],
      path: m[2].split('?')[0],
      page,
      heading: title,
      anchor,
      removed: heading.includes('{{%removed%}}'),
      deprecated: heading.includes('{{%deprecated%}}'),
    });
  }
  return out;
}

/** Every documented method below the methods folder `dir`. */
export function listMethods(dir) {
  return pages(dir).flatMap((page) => methodsOfPage(readFileSync(join(dir, page), 'utf8'), `methods/${page}`));
}

function main() {
  const [dir, outArg] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: node scripts/list-mastodon-methods.mjs PATH/TO/content/en/methods [OUT]');
    process.exit(2);
  }
  const out = outArg ?? fileURLToPath(new URL('../test/fixtures/mastodon-methods.json', import.meta.url));
  const methods = listMethods(dir);
  if (methods.length === 0) throw new Error(`no methods found below ${dir}`);
  const document = {
    source: 'mastodon/documentation, commit 2903485 (content/en/methods), CC BY 4.0; listed by scripts/list-mastodon-methods.mjs',
    methods,
  };
  writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`${methods.length} methods written to ${out}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
