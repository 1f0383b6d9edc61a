import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { isRequestHostAllowed } from '../../util/hosts.js';

/** How many Host header lines a request carries (Node keeps only the first in `headers.host`). */
function hostLines(req: IncomingMessage): number {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === 'host') count++;
  }
  return count;
}

/**
 * Whether the request names its host unambiguously: at most one Host line, and one at all from an
 * HTTP/1.1 client (RFC 9112 §3.2 makes both a 400). Node would drop the second Host silently and
 * answer a missing one itself without a body; the server is created with `requireHostHeader: false`
 * so that both reach this check and get a JSON answer.
 */
export function hasWellFormedHost(req: IncomingMessage): boolean {
  const lines = hostLines(req);
  if (lines > 1) return false;
  return lines === 1 || !(req.httpVersionMajor === 1 && req.httpVersionMinor >= 1);
}

/**
 * Host allow-list against DNS rebinding: a web page on some other name that resolves to 127.0.0.1
 * must not reach the local API. The rule itself (loopback names and *.localhost, the bind
 * address, the public origin's host, the HTTPS listener's names, configured extra names; `*`
 * accepts any) lives in api/util/hosts.ts, shared with WebSocket upgrades, which bypass Express.
 * A local-only instance publishes URLs at the host a proxy on loopback forwards for
 * (`X-Forwarded-Host`), so `followsRequest` checks that name too. A request with two Host headers,
 * or an HTTP/1.1 request without one, is a 400 before any of that.
 */
export function hostAllowList(allowed: readonly string[], followsRequest = false): RequestHandler {
  return (req, res, next) => {
    if (!hasWellFormedHost(req)) {
      res.status(400).json({ error: 'Bad Request' });
      return;
    }
    if (isRequestHostAllowed(req, allowed, followsRequest)) {
      next();
      return;
    }
    res.status(403).json({ error: 'This host name is not allowed' });
  };
}
