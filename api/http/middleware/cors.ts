import type { RequestHandler } from 'express';

const CORS_PREFIXES = ['/api/', '/oauth/token', '/oauth/revoke', '/oauth/userinfo', '/.well-known/', '/nodeinfo/', '/users/', '/health'];

/**
 * CORS as Mastodon answers it: any origin may call the API, OAuth token endpoints and discovery
 * documents without credentials; Link and rate-limit headers are exposed. Preflights end here.
 */
export const cors: RequestHandler = (req, res, next) => {
  if (!CORS_PREFIXES.some((p) => req.path.startsWith(p))) {
    next();
    return;
  }
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', 'Link, X-RateLimit-Reset, X-RateLimit-Limit, X-RateLimit-Remaining, X-Request-Id, Idempotency-Key');
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'POST, PUT, DELETE, GET, PATCH, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', req.header('Access-Control-Request-Headers') ?? 'Authorization, Content-Type, Idempotency-Key');
    res.setHeader('Access-Control-Max-Age', '1728000');
    res.status(200).end();
    return;
  }
  next();
};
