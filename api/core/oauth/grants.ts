import { createHash } from 'node:crypto';
import { findGrantByCodeHash, markGrantUsed, revokeTokensOfGrant, setTokenGrant, tokenGrantId, type AppRow } from '../../db/repos/oauth.js';
import { findTokenByHash, findTokenByRefreshHash, revokeToken, type TokenRow } from '../../db/repos/tokens.js';
import { findUserById } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { appScopes, authenticateClient, DEFAULT_SCOPE, scopesWithin } from './apps.js';
import { oauthError } from './errors.js';
import { parseScopes } from './scopes.js';
import { hashSecret, issueToken, type IssuedToken } from './tokens.js';
import { userRefusal, verifyLogin } from './web-sessions.js';

/**
 * The grant types `/oauth/token` advertises (in the OAuth metadata, as Mastodon's documentation
 * shows it). The password grant is accepted too, for the command-line clients that still use it
 * (toot's login_cli), but not advertised: Mastodon recommends against it.
 */
export const GRANT_TYPES = ['authorization_code', 'client_credentials', 'refresh_token'] as const;

/** Every grant type `/oauth/token` accepts. */
const ACCEPTED: readonly string[] = [...GRANT_TYPES, 'password'];

/** Parameters of `POST /oauth/token`, as strings (absent when not given). */
export interface TokenParams {
  grant_type?: string | undefined;
  client_id?: string | undefined;
  client_secret?: string | undefined;
  code?: string | undefined;
  redirect_uri?: string | undefined;
  code_verifier?: string | undefined;
  scope?: string | undefined;
  refresh_token?: string | undefined;
  /** The password grant's login (Mastodon: the e-mail address; Hearth also takes the username). */
  username?: string | undefined;
  password?: string | undefined;
}

/** Mastodon's Token entity (plus `refresh_token` when one was issued). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  scope: string;
  /** Unix seconds. */
  created_at: number;
  refresh_token?: string;
}

function toTokenResponse(issued: IssuedToken): TokenResponse {
  return {
    access_token: issued.accessToken,
    token_type: 'Bearer',
    scope: issued.row.scopes,
    created_at: Math.floor(issued.row.created_at / 1000),
    ...(issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
  };
}

function missing(name: string) {
  return oauthError('invalid_request', { description: `Missing required parameter: ${name}.` });
}

/**
 * `POST /oauth/token`: checks the grant type, authenticates the client, then runs the grant (the
 * password grant asynchronously: it checks a password). Errors are OAuthErrors (400, or 401 for a
 * client that failed to authenticate).
 */
export function grantToken(deps: Deps, params: TokenParams): TokenResponse | Promise<TokenResponse> {
  if (!params.grant_type) throw missing('grant_type');
  if (!ACCEPTED.includes(params.grant_type)) throw oauthError('unsupported_grant_type');
  const app = authenticateClient(deps, params.client_id, params.client_secret);
  if (!app) throw oauthError('invalid_client');
  switch (params.grant_type) {
    case 'authorization_code':
      return exchangeCode(deps, app, params);
    case 'client_credentials':
      return clientCredentials(deps, app, params);
    case 'password':
      return passwordGrant(deps, app, params);
    default:
      return refresh(deps, app, params);
  }
}

/**
 * The password grant as Mastodon accepted it: the client authenticates, the login and password
 * must be right (else invalid_grant, whichever was wrong), then the scopes (the app's default
 * when none are asked) must be within the app's. A user whose e-mail address is unconfirmed or
 * who awaits approval gets a token, as on Mastodon, and the methods that need a user tell them so
 * (403). A disabled or suspended user gets none: Hearth would refuse the token (401) anyway.
 */
async function passwordGrant(deps: Deps, app: AppRow, params: TokenParams): Promise<TokenResponse> {
  const user = params.username && params.password ? await verifyLogin(deps, params.username, params.password) : null;
  if (!user || userRefusal(deps, user) === 'disabled') throw oauthError('invalid_grant');
  const scopes = parseScopes(params.scope?.trim() ? params.scope : DEFAULT_SCOPE);
  if (!scopesWithin(scopes, appScopes(app))) throw oauthError('invalid_scope');
  return toTokenResponse(issueToken(deps, { applicationId: app.id, userId: user.id, scopes, withRefresh: true }));
}

/** The PKCE S256 transform: base64url(SHA-256(verifier)). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

function exchangeCode(deps: Deps, app: AppRow, params: TokenParams): TokenResponse {
  if (!params.code) throw missing('code');
  if (!params.redirect_uri) throw missing('redirect_uri');
  const grant = findGrantByCodeHash(deps.db, hashSecret(params.code));
  const at = now();
  if (!grant || grant.application_id !== app.id) throw oauthError('invalid_grant');
  if (grant.used_at !== null) {
    // A replayed code may have been stolen: revoke what it produced (RFC 6749 §4.1.2).
    const revoked = deps.db.transaction(() => revokeTokensOfGrant(deps.db, grant.id, at));
    for (const t of revoked) deps.events.emit('token.revoked', { tokenId: t.id, userId: t.user_id });
    throw oauthError('invalid_grant');
  }
  if (grant.expires_at <= at || grant.redirect_uri !== params.redirect_uri) throw oauthError('invalid_grant');
  if (grant.code_challenge !== null) {
    if (!params.code_verifier || !CODE_VERIFIER.test(params.code_verifier) || s256(params.code_verifier) !== grant.code_challenge) {
      throw oauthError('invalid_grant');
    }
  } else if (params.code_verifier) {
    // A verifier for a code issued without a challenge is a PKCE downgrade attempt (RFC 9700 §2.1.1).
    throw oauthError('invalid_grant');
  }
  const user = findUserById(deps.db, grant.user_id);
  if (!user || userRefusal(deps, user)) throw oauthError('invalid_grant');
  const issued = deps.db.transaction(() => {
    if (markGrantUsed(deps.db, grant.id, at) === 0) return null;
    const token = issueToken(deps, { applicationId: app.id, userId: user.id, scopes: parseScopes(grant.scopes), withRefresh: true });
    setTokenGrant(deps.db, token.row.id, grant.id);
    return token;
  });
  if (!issued) throw oauthError('invalid_grant');
  return toTokenResponse(issued);
}

function clientCredentials(deps: Deps, app: AppRow, params: TokenParams): TokenResponse {
  const scopes = parseScopes(params.scope?.trim() ? params.scope : DEFAULT_SCOPE);
  if (!scopesWithin(scopes, appScopes(app))) throw oauthError('invalid_scope');
  // RFC 6749 §4.4.3: no refresh token for the client credentials grant.
  return toTokenResponse(issueToken(deps, { applicationId: app.id, userId: null, scopes }));
}

function refresh(deps: Deps, app: AppRow, params: TokenParams): TokenResponse {
  if (!params.refresh_token) throw missing('refresh_token');
  const old = findTokenByRefreshHash(deps.db, hashSecret(params.refresh_token));
  if (!old || old.application_id !== app.id) throw oauthError('invalid_grant');
  const at = now();
  const grantId = tokenGrantId(deps.db, old.id);
  if (old.revoked_at !== null) {
    // A rotated refresh token came back: someone holds a copy. Revoke the whole family.
    if (grantId !== null) {
      const revoked = deps.db.transaction(() => revokeTokensOfGrant(deps.db, grantId, at));
      for (const t of revoked) deps.events.emit('token.revoked', { tokenId: t.id, userId: t.user_id });
    }
    throw oauthError('invalid_grant');
  }
  const oldScopes = parseScopes(old.scopes);
  const scopes = params.scope?.trim() ? parseScopes(params.scope) : oldScopes;
  if (!scopesWithin(scopes, oldScopes)) throw oauthError('invalid_scope');
  if (old.user_id !== null) {
    const user = findUserById(deps.db, old.user_id);
    if (!user || userRefusal(deps, user)) throw oauthError('invalid_grant');
  }
  const issued = deps.db.transaction(() => {
    if (revokeToken(deps.db, old.id, at) === 0) return null;
    const token = issueToken(deps, { applicationId: app.id, userId: old.user_id, scopes, withRefresh: true });
    setTokenGrant(deps.db, token.row.id, grantId);
    return token;
  });
  if (!issued) throw oauthError('invalid_grant');
  deps.events.emit('token.revoked', { tokenId: old.id, userId: old.user_id });
  return toTokenResponse(issued);
}

/** Parameters of `POST /oauth/revoke`. */
export interface RevokeParams {
  client_id?: string | undefined;
  client_secret?: string | undefined;
  token?: string | undefined;
}

/**
 * `POST /oauth/revoke` (RFC 7009): the client must authenticate; an access or refresh token it
 * owns is revoked; an unknown or already revoked token is fine (idempotent); a token of another
 * client is refused with 403 as Mastodon does.
 */
export function revokeByClient(deps: Deps, params: RevokeParams): void {
  const app = authenticateClient(deps, params.client_id, params.client_secret);
  if (!app) throw oauthError('invalid_client');
  if (!params.token) return;
  const hash = hashSecret(params.token);
  const token: TokenRow | undefined = findTokenByHash(deps.db, hash) ?? findTokenByRefreshHash(deps.db, hash);
  if (!token) return;
  if (token.application_id !== app.id) {
    throw oauthError('unauthorized_client', { status: 403, description: 'You are not authorized to revoke this token' });
  }
  if (revokeToken(deps.db, token.id, now()) > 0) deps.events.emit('token.revoked', { tokenId: token.id, userId: token.user_id });
}
