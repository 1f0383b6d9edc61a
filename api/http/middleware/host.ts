import type { RequestHandler } from 'express';
import { isRequestHostAllowed } from '../../util/hosts.js';

/**
 * Host allow-list against DNS rebinding: a web page on some other name that resolves to 127.0.0.1
 * must not reach the local API. The rule itself (loopback names and *.localhost, the bind
 * address, the public origin's host, the HTTPS listener's names, configured extra names; `*`
 * accepts any) lives in api/util/hosts.ts, shared with WebSocket upgrades, which bypass Express.
 * A local-only instance publishes URLs at the host a proxy on loopback forwards for
 * (`X-Forwarded-Host`), so `followsRequest` checks that name too.
 */
export function hostAllowList(allowed: readonly string[], followsRequest = false): RequestHandler {
  return (req, res, next) => {
    if (isRequestHostAllowed(req, allowed, followsRequest)) {
      next();
      return;
    }
    res.status(403).json({ error: 'This host name is not allowed' });
  };
}
