import type { RequestHandler } from 'express';
import { isHostAllowed } from '../../util/hosts.js';

/**
 * Host allow-list against DNS rebinding: a web page on some other name that resolves to 127.0.0.1
 * must not reach the local API. The rule itself (loopback names and *.localhost, the bind
 * address, the public origin's host, configured extra names; `*` accepts any) lives in
 * api/util/hosts.ts, shared with WebSocket upgrades, which bypass Express.
 */
export function hostAllowList(allowed: readonly string[]): RequestHandler {
  return (req, res, next) => {
    if (isHostAllowed(req.headers.host, allowed)) {
      next();
      return;
    }
    res.status(403).json({ error: 'This host name is not allowed' });
  };
}
