import type { RequestHandler } from 'express';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];

/** The host name part of a Host header value, lower case, without the port. */
export function hostName(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1);
  const colon = value.lastIndexOf(':');
  return colon === -1 ? value : value.slice(0, colon);
}

/**
 * Host allow-list against DNS rebinding: a web page on some other name that resolves to 127.0.0.1
 * must not reach the local API. Accepted: loopback names (and *.localhost), the bind address,
 * the public origin's host and configured extra names; `*` in the list accepts any.
 */
export function hostAllowList(allowed: () => string[]): RequestHandler {
  return (req, res, next) => {
    const list = allowed();
    const header = req.headers.host;
    if (list.includes('*')) {
      next();
      return;
    }
    const name = header ? hostName(header) : '';
    if (name && (LOOPBACK_NAMES.includes(name) || name.endsWith('.localhost') || list.includes(name))) {
      next();
      return;
    }
    res.status(403).json({ error: 'This host name is not allowed' });
  };
}
