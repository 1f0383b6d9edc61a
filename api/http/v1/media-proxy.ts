import { openProxiedMedia, proxyRangeOf, type ProxiedFile, type ProxyTarget } from '../../core/media/remote-proxy.js';
import { FetchError } from '../../util/safe-fetch.js';
import type { Ctx, Routes } from '../routes.js';

/**
 * The media proxy, `/media_proxy/<attachment id>/original|small` (Mastodon's path) and, for
 * avatars, headers and emojis, `/media_proxy/accounts/<id>/avatar|header` and
 * `/media_proxy/emojis/<id>`: the remote file streamed through. 404 for anything that is not a
 * remote file known here, 502 when the remote server fails (unreachable, an error status, a file
 * over the limit, a forbidden address). The URLs the API gives point here when the instance runs
 * with `remoteMedia: 'proxy'`; the route answers in both modes. A single byte range (players seek
 * with them) goes to the remote server; its 206 or 416 is passed on, and `Accept-Ranges` is
 * advertised only when the remote server takes ranges.
 */

/** Proxied files may be kept a day by clients and caches. */
const CACHE_CONTROL = 'public, max-age=86400';

// Errors are JSON, as everywhere under /api, /system and /media_proxy.
function notFound(ctx: Ctx): void {
  ctx.res.status(404).json({ error: 'Record not found' });
}

async function stream(ctx: Ctx, target: ProxyTarget | null): Promise<void> {
  const { req, res } = ctx;
  if (!target) return notFound(ctx);
  const abort = new AbortController();
  const onClose = () => abort.abort();
  res.on('close', onClose);
  let file: ProxiedFile | null;
  try {
    const range = proxyRangeOf(req.headers.range, typeof req.headers['if-range'] === 'string' ? req.headers['if-range'] : undefined);
    file = await openProxiedMedia(ctx.deps, target, abort.signal, range);
  } catch (err) {
    res.off('close', onClose);
    if (!(err instanceof FetchError)) throw err;
    if (!res.headersSent && !res.destroyed) res.status(502).json({ error: 'Bad Gateway' });
    return;
  }
  res.off('close', onClose);
  if (!file) return notFound(ctx);
  const body = file.body;
  const close = file.close;
  res.setHeader('Content-Type', file.contentType);
  res.setHeader('Cache-Control', CACHE_CONTROL);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // Remote files are data, never a page: nothing in them may run if opened directly.
  res.setHeader('Content-Security-Policy', "default-src 'none'; form-action 'none'");
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (file.acceptRanges) res.setHeader('Accept-Ranges', 'bytes');
  if (file.etag) res.setHeader('ETag', file.etag);
  if (file.lastModified) res.setHeader('Last-Modified', file.lastModified);
  if (file.contentRange) res.setHeader('Content-Range', file.contentRange);
  if (file.length !== null) res.setHeader('Content-Length', String(file.length));
  res.status(file.status);
  if (req.method === 'HEAD' || file.status === 416) {
    close();
    if (file.status === 416 && req.method !== 'HEAD') res.json({ error: 'Range Not Satisfiable' });
    else res.end();
    return;
  }
  await new Promise<void>((resolve) => {
    // A remote failure half-way (cut, over the limit, too slow) can only cut the answer short.
    body.on('error', () => {
      res.destroy();
      resolve();
    });
    res.on('close', () => {
      close();
      resolve();
    });
    body.pipe(res);
  });
}

/** Registers the media proxy routes (no token: they are links in entities, like `/system`). */
export function register(r: Routes): void {
  r.get('/media_proxy/accounts/:id/:kind', 'none', [], (ctx) => {
    const kind = String(ctx.req.params.kind);
    return stream(ctx, kind === 'avatar' || kind === 'header' ? { kind, id: String(ctx.req.params.id) } : null);
  });
  r.get('/media_proxy/emojis/:id', 'none', [], (ctx) => stream(ctx, { kind: 'emoji', id: String(ctx.req.params.id) }));
  r.get('/media_proxy/:id/:style', 'none', [], (ctx) => {
    const style = String(ctx.req.params.style);
    return stream(ctx, style === 'original' || style === 'small' ? { kind: 'attachment', id: String(ctx.req.params.id), style } : null);
  });
  // Mastodon also answers without a style: the original.
  r.get('/media_proxy/:id', 'none', [], (ctx) => stream(ctx, { kind: 'attachment', id: String(ctx.req.params.id), style: 'original' }));
}
