import type { Request } from 'express';
import { OAuthError, oauthError } from '../../core/oauth/errors.js';
import { grantToken, revokeByClient } from '../../core/oauth/grants.js';
import { countSignInAttempt } from '../middleware/rate-limit.js';
import { Reply, type Ctx, type Routes } from '../routes.js';

/** Client credentials from `Authorization: Basic` (RFC 6749 §2.3.1: each part form-urlencoded). */
export function basicCredentials(req: Request): { id: string; secret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(req.header('authorization') ?? '');
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return null;
  const unform = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
}

/**
 * The string parameters of an OAuth request (form, JSON, multipart or query alike). A parameter
 * given as anything but a string (an array, an object) is a malformed request.
 */
function oauthParams<K extends string>(input: Record<string, unknown>, names: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const name of names) {
    const value = input[name];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value === 'number') out[name] = String(value);
    else if (typeof value === 'string') out[name] = value;
    else throw oauthError('invalid_request', { description: `The parameter ${name} is malformed.` });
  }
  return out;
}

// RFC 6749 §5.1: token responses must not be cached.
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/**
 * Runs an OAuth endpoint, answering OAuth errors in their own shape with RFC 6749's headers; an
 * endpoint that answers later (the password grant checks a password) is waited for.
 */
function oauthEndpoint(ctx: Ctx, run: (client: { client_id?: string; client_secret?: string }) => unknown): Reply | Promise<Reply> {
  const basic = basicCredentials(ctx.req);
  const refused = (err: unknown): Reply => {
    if (!(err instanceof OAuthError)) throw err;
    const headers: Record<string, string> = { ...NO_STORE };
    // RFC 6749 §5.2: a client that tried HTTP authentication is told how to authenticate.
    if (err.status === 401 && basic) headers['WWW-Authenticate'] = 'Basic realm="hearth", charset="UTF-8"';
    return new Reply(err.status, { error: err.code, error_description: err.description }, headers);
  };
  try {
    const body = run(basic ? { client_id: basic.id, client_secret: basic.secret } : {});
    if (body instanceof Promise) return body.then((value: unknown) => new Reply(200, value ?? {}, NO_STORE), refused);
    return new Reply(200, body ?? {}, NO_STORE);
  } catch (err) {
    return refused(err);
  }
}

/**
 * `POST /oauth/token` (authorization_code, client_credentials, refresh_token, and password) and
 * `POST /oauth/revoke`. Clients authenticate with `client_id`/`client_secret` in the body or
 * with HTTP Basic (which wins when both are given). A password grant counts as a sign-in attempt
 * (the sign-in page's rate limits, per address and per login).
 */
export function register(r: Routes): void {
  r.post('/oauth/token', 'none', [], (ctx) =>
    oauthEndpoint(ctx, (basic) => {
      const p = oauthParams(ctx.input, ['grant_type', 'client_id', 'client_secret', 'code', 'redirect_uri', 'code_verifier', 'scope', 'refresh_token', 'username', 'password']);
      if (p.grant_type === 'password') countSignInAttempt(ctx.deps, ctx.req, ctx.res, p.username ?? '');
      return grantToken(ctx.deps, { ...p, ...basic });
    }),
  );

  r.post('/oauth/revoke', 'none', [], (ctx) =>
    oauthEndpoint(ctx, (basic) => {
      const p = oauthParams(ctx.input, ['client_id', 'client_secret', 'token']);
      revokeByClient(ctx.deps, { ...p, ...basic });
      return {};
    }),
  );
}
