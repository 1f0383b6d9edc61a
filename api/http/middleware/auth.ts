import type { Request } from 'express';
import type { InvalidTokenReason } from '../../core/oauth/errors.js';
import { checkToken, type AuthContext } from '../../core/oauth/tokens.js';
import type { Deps } from '../../core/deps.js';

/**
 * Reads the access token the way Mastodon (Doorkeeper) does: `Authorization: Bearer …` first,
 * then an `access_token` query or body parameter. Before the body is parsed (the rate limiter)
 * only the header and the query are seen.
 */
export function tokenFromRequest(req: Request): string | null {
  const header = req.headers.authorization;
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

/** The caller behind a request's token: whether one was given, who it is, or why it was refused. */
export interface ResolvedAuth {
  present: boolean;
  auth: AuthContext | null;
  /** Why a given token was refused (null when none was given or it is valid). */
  refusal: InvalidTokenReason | null;
}

const NO_TOKEN: ResolvedAuth = { present: false, auth: null, refusal: null };

// What a request's token resolved to, kept on the request so that the rate limiter and the route
// resolve it once.
const RESOLVED = Symbol('hearth.resolvedAuth');
type Remembering = Request & { [RESOLVED]?: { token: string; result: ResolvedAuth } };

/**
 * The caller behind a request's token, or null without a (valid) token. What the rate limiter
 * resolved (`remember`) is resolved once: asked again by the route, the same answer comes back,
 * unless the body has since brought a token the first look could not see.
 */
export function resolveAuth(deps: Deps, req: Request, remember = false): ResolvedAuth {
  const token = tokenFromRequest(req);
  if (!token) return NO_TOKEN;
  const known = (req as Remembering)[RESOLVED];
  if (known?.token === token) return known.result;
  const check = checkToken(deps, token);
  const result: ResolvedAuth = { present: true, auth: check.auth, refusal: check.refusal };
  if (remember) (req as Remembering)[RESOLVED] = { token, result };
  return result;
}
