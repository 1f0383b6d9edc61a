import type { RequestHandler } from 'express';
import { ipHasNoAccess } from '../../core/admin/ip-blocks.js';
import type { Deps } from '../../core/deps.js';
import { forbidden } from '../../util/errors.js';
import { requestAddress } from './client-address.js';

/**
 * Refuses every request from an address that a `no_access` IP block covers (Mastodon's
 * Rack::Attack blocklist, which answers 403), before anything else reads it: the API, OAuth,
 * ActivityPub and the pages alike. Loopback addresses are never refused (see core/admin/ip-blocks.ts).
 * The check is one small read while the IP blocks are unchanged.
 */
export function ipAccess(deps: Deps): RequestHandler {
  return (req, _res, next) => {
    if (ipHasNoAccess(deps, requestAddress(req))) {
      next(forbidden('Forbidden'));
      return;
    }
    next();
  };
}
