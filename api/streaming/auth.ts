import type { IncomingMessage } from 'node:http';
import type { Config } from '../config.js';
import type { Deps } from '../core/deps.js';
import { authenticate } from '../core/oauth/tokens.js';
import { allowedHostNames, isRequestHostAllowed } from '../util/hosts.js';
import { StreamError, type StreamCaller } from './channels.js';

/** A streaming caller with the token that authorised it (revoking the token ends its streams). */
export interface StreamSessionAuth extends StreamCaller {
  tokenId: string;
  userId: string;
}

/**
 * The access token of a streaming request, as Mastodon's streaming server reads it: the
 * `Authorization: Bearer` header first, then the `access_token` query parameter, then the
 * `Sec-WebSocket-Protocol` header (browsers cannot set headers on a WebSocket).
 */
export function streamingToken(req: IncomingMessage, query: URLSearchParams): string | null {
  const header = req.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    return match?.[1]?.trim() || null;
  }
  const fromQuery = query.get('access_token');
  if (fromQuery) return fromQuery;
  const protocol = req.headers['sec-websocket-protocol'];
  // Clients send the token as the only protocol; a list keeps its first entry.
  const first = protocol?.split(',')[0]?.trim();
  return first || null;
}

/**
 * Resolves the caller of a streaming request. Since Mastodon 4.2 every stream needs a user token:
 * none is 401 `Missing access token`; an unknown, revoked or app-only token is 401
 * `Invalid access token`; a sign-up still waiting for approval is 403 as on the REST API.
 */
export function authenticateStream(deps: Deps, token: string | null): StreamSessionAuth {
  if (!token) throw new StreamError(401, 'Missing access token');
  const auth = authenticate(deps, token);
  if (!auth || !auth.user || !auth.account) throw new StreamError(401, 'Invalid access token');
  if (!auth.user.approved) throw new StreamError(403, 'Your login is currently pending approval');
  return { accountId: auth.account.id, userId: auth.user.id, tokenId: auth.token.id, scopes: auth.scopes };
}

/**
 * The Host allow-list of the HTTP API (http/middleware/host.ts), for WebSocket upgrades, which do
 * not pass through Express: loopback names, the bind address, the public origin's host, the HTTPS
 * listener's names and the configured names (`*` accepts any), and for a local-only instance the
 * host a proxy on loopback forwards for. Keeps DNS-rebinding pages off the socket too.
 */
export function hostAllowed(config: Config, req: IncomingMessage): boolean {
  return isRequestHostAllowed(req, allowedHostNames(config), !config.origin);
}
