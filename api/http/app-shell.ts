import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestHandler } from 'express';

/**
 * Serves the app (renderer/, built by Vite into dist/renderer) at `/`: its hashed assets under
 * `/assets/` (cached for a year, as their names change with their content) and its page for any
 * other GET a browser makes that no route answered (`/`, `/@alice`, `/notifications`…, the app's
 * own routes). The page gets a strict Content-Security-Policy: scripts, styles and connections
 * only from this origin (no inline script, no eval), images and media only from here (remote
 * media is served through this instance, so the app never contacts another server), no framing.
 */

/**
 * The Content-Security-Policy of the app's page. With a public origin, the URLs the API gives for
 * media (avatars, attachments, emojis) are built on it, so images and media may also come from
 * there when the app is opened at a local address.
 */
export function appCsp(origin: string | null = null): string {
  const media = origin ? ` ${new URL(origin).origin}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data: blob:${media}`,
    `media-src 'self' blob:${media}`,
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "frame-src 'none'",
    "worker-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

/** Paths that belong to the server (API, OAuth, federation, media, pages): never the app's page. */
const SERVER_PATHS = /^\/(api|oauth|auth|\.well-known|nodeinfo|users|inbox|system|media|media_proxy|avatars|headers|health|setup|streaming|packs|share|interact|authorize_interaction)(\/|$)/;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/** dist/renderer (or HEARTH_RENDERER_DIR), found from this module whether it runs compiled (dist/api/http) or from source (api/http). */
function rendererDir(): string | null {
  // A build elsewhere (HEARTH_RENDERER_DIR), as when developing the app beside a running server.
  const given = process.env.HEARTH_RENDERER_DIR;
  if (given) return existsSync(join(given, 'index.html')) ? given : null;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'dist', 'renderer');
    if (existsSync(join(dir, 'package.json'))) return existsSync(join(candidate, 'index.html')) ? candidate : null;
    dir = dirname(dir);
  }
  return null;
}

function setPageHeaders(res: Parameters<RequestHandler>[1], csp: string): void {
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-cache');
}

/**
 * The middleware that serves the app; mounted after every route and before the JSON 404. Without
 * a built app (dist/renderer missing) it passes every request on. `origin` is the public origin, if any.
 */
export function appShell(origin: string | null = null): RequestHandler {
  const dir = rendererDir();
  const csp = appCsp(origin);
  let page: Buffer | null = null;
  /** Each asset as read, with the brotli and gzip copies the build wrote beside it (scripts/compress-app.mjs). */
  const assets = new Map<string, { raw: Buffer; br: Buffer | null; gzip: Buffer | null }>();
  const readIf = (path: string) => (existsSync(path) ? readFileSync(path) : null);
  return (req, res, next) => {
    if (!dir || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    if (req.path.startsWith('/assets/')) {
      const file = normalize(join(dir, req.path));
      // A path that climbs out of the assets folder (encoded dots) is simply not found.
      if (!file.startsWith(join(dir, 'assets') + sep) || /\.(br|gz)$/.test(file) || !existsSync(file) || !statSync(file).isFile()) return next();
      const ext = file.slice(file.lastIndexOf('.'));
      res.setHeader('Content-Type', TYPES[ext] ?? 'application/octet-stream');
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      let entry = assets.get(file);
      if (!entry) {
        entry = { raw: readFileSync(file), br: readIf(`${file}.br`), gzip: readIf(`${file}.gz`) };
        assets.set(file, entry);
      }
      const accepts = String(req.headers['accept-encoding'] ?? '');
      let body = entry.raw;
      res.setHeader('Vary', 'Accept-Encoding');
      if (entry.br && /\bbr\b/.test(accepts)) {
        body = entry.br;
        res.setHeader('Content-Encoding', 'br');
      } else if (entry.gzip && /\bgzip\b/.test(accepts)) {
        body = entry.gzip;
        res.setHeader('Content-Encoding', 'gzip');
      }
      res.setHeader('Content-Length', String(body.length));
      return res.status(200).end(req.method === 'HEAD' ? undefined : body);
    }
    if (SERVER_PATHS.test(req.path) || !(req.headers.accept ?? '').includes('text/html')) return next();
    // The public origin goes into the page (a meta tag: no script), so the app knows that media
    // URLs built on it are the instance's own too.
    page ??= Buffer.from(
      readFileSync(join(dir, 'index.html'), 'utf8').replace('<head>', `<head>\n    <meta name="hearth-origin" content="${origin ? new URL(origin).origin : ''}">`),
    );
    setPageHeaders(res, csp);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.status(200).end(req.method === 'HEAD' ? undefined : page);
  };
}
