import type { Request } from 'express';
import { authenticate, type AuthContext } from '../../core/oauth/tokens.js';
import type { Deps } from '../../core/deps.js';

/**
 * Reads the access token the way Mastodon (Doorkeeper) does: `Authorization: Bearer …` first,
 * then an `access_token` query or body parameter.
 */
export function tokenFromRequest(req: Request): string | null {
  const header = req.header('authorization');
  if (header) {
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    return match?.[1]?.trim() || null;
  }
  // Without a query string there is nothing to parse (Express parses req.query at every read).
  if (req.url.includes('?')) {
    const fromQuery = (req.query as Record<string, unknown>).access_token;
    if (typeof fromQuery === 'string' && fromQuery) return fromQuery;
  }
  const body = req.body as Record<string, unknown> | undefined;
  if (body && typeof body.access_token === 'string' && body.access_token) return body.access_token;
  return null;
}

/** The caller behind a request's token, or null without a (valid) token. */
export function resolveAuth(deps: Deps, req: Request): { present: boolean; auth: AuthContext | null } {
  const token = tokenFromRequest(req);
  if (!token) return { present: false, auth: null };
  return { present: true, auth: authenticate(deps, token) };
}
