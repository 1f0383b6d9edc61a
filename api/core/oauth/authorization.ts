import { insertGrant, type AppRow } from '../../db/repos/oauth.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { appRedirectUris, appScopes, DEFAULT_SCOPE, findApplication, OOB_REDIRECT_URI, scopesWithin } from './apps.js';
import { OAuthError, type OAuthErrorCode } from './errors.js';
import { parseScopes } from './scopes.js';
import { hashSecret, randomSecret } from './tokens.js';

/** How long an authorization code may wait before it is exchanged. */
export const CODE_TTL_MS = 10 * 60 * 1000;

/** The parameters of `/oauth/authorize`, as strings (absent when not given). */
export interface AuthorizationParams {
  response_type?: string | undefined;
  client_id?: string | undefined;
  redirect_uri?: string | undefined;
  scope?: string | undefined;
  state?: string | undefined;
  code_challenge?: string | undefined;
  code_challenge_method?: string | undefined;
}

/** A checked authorization request: the app, where to send the answer and what is asked for. */
export interface AuthorizationRequest {
  app: AppRow;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string | null;
  codeChallengeMethod: 'S256' | null;
}

/**
 * A refused authorization request. `redirectUri` is set only once the client and its redirect
 * URI are known to be valid: then the error goes back to the client (RFC 6749 §4.1.2.1);
 * otherwise it must be shown to the user, never sent to an unchecked address.
 */
export class AuthorizationError extends OAuthError {
  constructor(
    code: OAuthErrorCode,
    readonly redirectUri: string | null,
    readonly state: string | undefined,
    description?: string,
  ) {
    super(code, description === undefined ? {} : { description });
    this.name = 'AuthorizationError';
  }
}

// RFC 7636 §4.2: a base64url SHA-256 is 43 characters; the alphabet allows 43 to 128.
const CODE_CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * Checks an authorization request as Doorkeeper does for Mastodon: the client must exist and the
 * redirect URI must be one it registered (exactly; it may be left out when the app has only
 * one); then `response_type=code`, scopes within the app's (default `read`), and PKCE with S256
 * only. Throws AuthorizationError.
 */
export function checkAuthorizationRequest(deps: Deps, params: AuthorizationParams): AuthorizationRequest {
  const app = findApplication(deps, params.client_id);
  if (!app) throw new AuthorizationError('invalid_client', null, params.state);
  const registered = appRedirectUris(app);
  let redirectUri = params.redirect_uri;
  if (!redirectUri) {
    if (registered.length !== 1 || registered[0] === undefined) throw new AuthorizationError('invalid_redirect_uri', null, params.state);
    redirectUri = registered[0];
  }
  if (!registered.includes(redirectUri)) throw new AuthorizationError('invalid_redirect_uri', null, params.state);

  // From here on, errors can go back to the client's redirect URI.
  const fail = (code: OAuthErrorCode, description?: string) => new AuthorizationError(code, redirectUri, params.state, description);
  if (!params.response_type) throw fail('invalid_request', 'Missing required parameter: response_type.');
  if (params.response_type !== 'code') throw fail('unsupported_response_type');

  const scopes = parseScopes(params.scope?.trim() ? params.scope : DEFAULT_SCOPE);
  if (!scopesWithin(scopes, appScopes(app))) throw fail('invalid_scope');

  let codeChallenge: string | null = null;
  let codeChallengeMethod: 'S256' | null = null;
  if (params.code_challenge || params.code_challenge_method) {
    // Mastodon supports S256 only; a challenge without a method would mean "plain" (RFC 7636 §4.3).
    if (params.code_challenge_method !== 'S256') throw fail('invalid_request', 'The code_challenge_method must be S256.');
    if (!params.code_challenge || !CODE_CHALLENGE.test(params.code_challenge)) {
      throw fail('invalid_request', 'The code_challenge is missing or malformed.');
    }
    codeChallenge = params.code_challenge;
    codeChallengeMethod = 'S256';
  }
  return { app, redirectUri, scopes, state: params.state, codeChallenge, codeChallengeMethod };
}

/** True when the answer is shown to the user rather than sent to a redirect URI. */
export function isOutOfBand(redirectUri: string): boolean {
  return redirectUri === OOB_REDIRECT_URI;
}

/**
 * Issues an authorization code for an approved request; the code is single-use, expires after
 * ten minutes and is stored only as a hash.
 */
export function createAuthorizationCode(deps: Deps, request: AuthorizationRequest, userId: string): string {
  const code = randomSecret();
  const at = now();
  insertGrant(deps.db, {
    id: newId(at),
    application_id: request.app.id,
    user_id: userId,
    code_hash: hashSecret(code),
    redirect_uri: request.redirectUri,
    scopes: request.scopes.join(' '),
    code_challenge: request.codeChallenge,
    code_challenge_method: request.codeChallengeMethod,
    expires_at: at + CODE_TTL_MS,
    created_at: at,
  });
  return code;
}

/**
 * The URL the browser is sent to after approval or refusal: the redirect URI with the answer's
 * parameters added to its query (keeping any query it already has).
 */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.append(key, value);
  }
  return url.toString();
}
