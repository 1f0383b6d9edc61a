import type { Duplex } from 'node:stream';
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
 * failures (malformed JSON, too large) → 400/413; anything else → 500 with Rails' generic text
 * ("Internal Server Error", what Mastodon's unrescued errors answer) and the real error logged.
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
    res.status(status).json({ error: e.expose === false ? 'Bad Request' : e.message || 'Bad Request' });
    return;
  }
  console.error('unhandled error', err);
  res.status(500).json({ error: 'Internal Server Error' });
};

// What Node's parser reports, and the status Node itself would answer with (its default
// `clientError` behaviour); anything else is a 400.
const CLIENT_ERROR_STATUS: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Content Too Large',
  431: 'Request Header Fields Too Large',
};

/**
 * Listener for a server's `clientError` event: a request Node could not parse (headers too large,
 * a malformed request line or header, a bad Content-Length…) never reaches Express, and Node's own
 * answer has no body. This one answers the same status with a JSON `{"error": …}` body, as every
 * other error of the API, and closes the connection. Only on a socket that has not started an
 * answer (a broken request after a keep-alive one must not corrupt the response in flight).
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const status = CLIENT_ERROR_STATUS[err.code ?? ''] ?? 400;
  const body = JSON.stringify({ error: STATUS_TEXT[status] ?? 'Bad Request' });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Bad Request'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Access-Control-Allow-Origin: *\r\n' +
      'Connection: close\r\n\r\n' +
      body,
  );
}
