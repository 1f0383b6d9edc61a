import type { ErrorRequestHandler, RequestHandler } from 'express';
import { InvalidTokenError } from '../../core/oauth/errors.js';
import { ApiError } from '../../util/errors.js';

/** 404 for any path no route answers, in Mastodon's shape. */
export const notFoundHandler: RequestHandler = (_req, res) => {
  res.status(404).json({ error: 'Record not found' });
};

interface HttpishError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
}

/**
 * The one error renderer: ApiError → its status and `{"error": message, …extra}` (a refused
 * token also gets its `WWW-Authenticate` challenge); body-parser
 * failures (malformed JSON, too large) → 400/413; anything else → 500 with a generic message
 * and the real error logged.
 */
export const errorHandler: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (err instanceof InvalidTokenError) {
    // Doorkeeper's answer to a bad token: the challenge, and no caching of the refusal.
    res.setHeader('WWW-Authenticate', err.challenge);
    res.setHeader('Cache-Control', 'no-store');
  }
  if (err instanceof ApiError) {
    // Mastodon's validation errors carry per-field `details`; clients (and the OpenAPI
    // description) expect the member on every 422, so it is always present, empty if need be.
    const details = err.status === 422 ? { details: {} } : {};
    res.status(err.status).json({ error: err.message, ...details, ...(err.extra ?? {}) });
    return;
  }
  const e = err as HttpishError & Error;
  const status = e?.status ?? e?.statusCode;
  if (e?.type === 'entity.parse.failed') {
    res.status(400).json({ error: 'Error occurred while parsing request parameters' });
    return;
  }
  if (e?.type === 'entity.too.large') {
    res.status(413).json({ error: 'Request entity too large' });
    return;
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    res.status(status).json({ error: e.expose === false ? 'Bad request' : e.message || 'Bad request' });
    return;
  }
  console.error('unhandled error', err);
  res.status(500).json({ error: 'Internal server error' });
};
