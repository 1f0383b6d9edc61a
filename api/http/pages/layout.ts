import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import { html, SafeHtml } from '../../util/html-template.js';

/** How a page is sent. */
export interface PageOptions {
  title: string;
  status?: number;
  /**
   * Extra CSP `form-action` sources: a form whose answer redirects elsewhere (the consent page
   * redirecting to the client) needs that target allowed, or browsers block the redirect.
   */
  formTargets?: readonly string[];
}

// A constant written here, so it goes into the page as it is.
const STYLE = new SafeHtml(`
  :root { color-scheme: light dark; --accent: #5b4fd6; --danger: #c0392b; --muted: #6b6b7b; }
  * { box-sizing: border-box; }
  body { font: 16px/1.5 system-ui, -apple-system, Segoe UI, sans-serif; margin: 0; padding: 2rem 1rem; display: flex; justify-content: center; }
  main { width: 100%; max-width: 28rem; }
  h1 { font-size: 1.4rem; margin: 0 0 1rem; }
  label { display: block; margin: 0.8rem 0 0.2rem; font-weight: 600; }
  input[type=text], input[type=email], input[type=password] { width: 100%; padding: 0.55rem; font: inherit; border: 1px solid #999; border-radius: 6px; }
  button { font: inherit; padding: 0.55rem 1.1rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; margin-top: 1rem; }
  button.secondary { background: transparent; color: inherit; border-color: #999; }
  .error { border: 1px solid var(--danger); color: var(--danger); padding: 0.6rem 0.8rem; border-radius: 6px; margin: 0.8rem 0; }
  .muted { color: var(--muted); font-size: 0.9rem; }
  ul.scopes { list-style: none; padding: 0; }
  ul.scopes li { padding: 0.5rem 0; border-bottom: 1px solid #8884; }
  ul.scopes code { font-size: 0.85rem; }
  .dangerous { color: var(--danger); font-weight: 700; }
  .code { font: 1.1rem ui-monospace, monospace; padding: 0.8rem; border: 1px dashed #999; border-radius: 6px; word-break: break-all; user-select: all; }
  .actions { display: flex; gap: 0.6rem; flex-wrap: wrap; }
`);

/** A CSP source expression for where a redirect URI points: its origin, or its scheme for app links. */
export function cspSourceFor(uri: string): string | null {
  try {
    const url = new URL(uri);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
    return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? url.protocol : null;
  } catch {
    return null;
  }
}

/**
 * Sends a server-rendered page with the headers every page gets: a strict Content-Security-Policy
 * (nothing external, no scripts, only this response's inline style), no framing, no sniffing, no
 * referrer (pages may carry codes in their URL) and no caching.
 */
export function sendPage(res: Response, body: SafeHtml, options: PageOptions): void {
  const nonce = randomBytes(16).toString('base64');
  const formAction = ["'self'", ...(options.formTargets ?? [])].join(' ');
  res.status(options.status ?? 200);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  const page = html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${options.title} · Hearth</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
  res.send(page.toString());
}
