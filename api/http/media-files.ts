import { createReadStream } from 'node:fs';
import { findStoredFile } from '../core/media/files.js';
import { notFound } from '../util/errors.js';
import type { Ctx, Routes } from './routes.js';

/**
 * Stored files at `/system/<key>` (media, thumbnails, avatars and headers, emojis, card pictures),
 * as the URLs federation publishes: the type from the key, byte ranges (audio and video seek with
 * them), and a year of immutable caching, since a changed file always gets a new key. Only
 * well-formed keys of regular files are served: no directory listings, no way out of the storage.
 */

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Parses a single `bytes=` range against a size; null when absent or not satisfiable, 'invalid' to ignore. */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Several ranges or another unit: answering the whole file is allowed (RFC 9110).
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

async function serve(ctx: Ctx): Promise<void> {
  const { req, res } = ctx;
  const key = Object.keys(req.params)
    .filter((name) => /^k\d+$/.test(name))
    .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))
    .map((name) => String(req.params[name]))
    .join('/');
  const file = await findStoredFile(ctx.deps, key);
  if (!file) throw notFound();
  const etag = `"${file.size.toString(16)}-${Math.floor(file.mtimeMs).toString(16)}"`;
  res.setHeader('Content-Type', file.contentType);
  res.setHeader('Cache-Control', IMMUTABLE);
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('ETag', etag);
  res.setHeader('Last-Modified', new Date(file.mtimeMs).toUTCString());
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // Uploaded files are data, never a page: nothing in them may run if opened directly.
  res.setHeader('Content-Security-Policy', "default-src 'none'; form-action 'none'");
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (req.headers['if-none-match'] === etag) {
    res.status(304).end();
    return;
  }
  // A stale If-Range means the client's partial copy is of another file: send it whole.
  const ifRange = req.headers['if-range'];
  const range = ifRange && ifRange !== etag ? null : parseRange(req.headers.range, file.size);
  if (range === 'unsatisfiable') {
    res.setHeader('Content-Range', `bytes */${file.size}`);
    res.status(416).json({ error: 'Range Not Satisfiable' });
    return;
  }
  const { start, end } = range ?? { start: 0, end: file.size - 1 };
  if (range) {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${start}-${end}/${file.size}`);
  } else {
    res.status(200);
  }
  res.setHeader('Content-Length', String(Math.max(0, end - start + 1)));
  if (req.method === 'HEAD' || file.size === 0) {
    res.end();
    return;
  }
  await new Promise<void>((resolve) => {
    const stream = createReadStream(file.path, { start, end });
    stream.on('error', () => {
      res.destroy();
      resolve();
    });
    res.on('close', () => {
      stream.destroy();
      resolve();
    });
    stream.pipe(res);
  });
}

/** Deepest key served (Mastodon's layout uses ten segments for media files). */
const MAX_DEPTH = 16;

/**
 * Registers `/system/<key>`. The route table matches whole segments only, so there is one route
 * per key depth, each parameter one segment of the key.
 */
export function register(r: Routes): void {
  for (let depth = 1; depth <= MAX_DEPTH; depth++) {
    const params = Array.from({ length: depth }, (_, i) => `:k${i}`).join('/');
    r.get(`/system/${params}`, 'none', [], serve);
  }
}
