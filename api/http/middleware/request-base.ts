import type { RequestHandler } from 'express';
import { requestOrigin } from '../../util/hosts.js';
import type { UrisScope } from '../../util/uris.js';

/**
 * For a local-only instance: every URL published while a request is served (instance, OAuth
 * metadata, accounts, media, pagination links, the streaming address, pages) is built from the
 * address the client used: its Host (or a loopback proxy's `X-Forwarded-Host`) and its scheme
 * (https on the HTTPS listener, or a loopback proxy's `X-Forwarded-Proto`). Mounted after the
 * body parsers, whose stream callbacks would not carry the scope on to the routes.
 */
export function requestBase(scope: UrisScope): RequestHandler {
  return (req, _res, next) => {
    const origin = requestOrigin(req);
    if (origin === null) {
      next();
      return;
    }
    scope.run(origin, next);
  };
}
