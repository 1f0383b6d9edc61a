import { ApiError } from '../../util/errors.js';

/**
 * OAuth 2.0 error codes (RFC 6749 §4.1.2.1 and §5.2, RFC 7009 §2.2.1) with the descriptions
 * Mastodon answers, and the HTTP status each one takes at the token and revocation endpoints.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'invalid_redirect_uri'
  | 'server_error';

const DESCRIPTIONS: Record<OAuthErrorCode, string> = {
  invalid_request: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
  invalid_client: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
  invalid_grant:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  unauthorized_client: 'The client is not authorized to perform this request using this method.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
  access_denied: 'The resource owner or authorization server denied the request.',
  unsupported_response_type: 'The authorization server does not support this response type.',
  invalid_redirect_uri: "The requested redirect uri is malformed or doesn't match client redirect URI.",
  server_error: 'The authorization server encountered an unexpected condition which prevented it from fulfilling the request.',
};

// invalid_client is the only 401 of RFC 6749 §5.2; everything else the token endpoint refuses is 400.
const STATUS: Partial<Record<OAuthErrorCode, number>> = { invalid_client: 401, server_error: 500 };

/** The standard description of an OAuth error code. */
export function oauthErrorDescription(code: OAuthErrorCode): string {
  return DESCRIPTIONS[code];
}

/** An OAuth error, rendered as `{"error": code, "error_description": …}`. */
export class OAuthError extends ApiError {
  readonly code: OAuthErrorCode;

  constructor(code: OAuthErrorCode, options: { status?: number; description?: string } = {}) {
    const description = options.description ?? DESCRIPTIONS[code];
    super(options.status ?? STATUS[code] ?? 400, code, { extra: { error_description: description } });
    this.name = 'OAuthError';
    this.code = code;
  }

  /** The human-readable description sent with the error. */
  get description(): string {
    return String(this.extra?.error_description ?? DESCRIPTIONS[this.code]);
  }
}

/** Shorthand for throwing an OAuth error with its standard status and description. */
export function oauthError(code: OAuthErrorCode, options?: { status?: number; description?: string }): OAuthError {
  return new OAuthError(code, options);
}

/** Why a bearer token was refused, in Doorkeeper's terms. */
export type InvalidTokenReason = 'unknown' | 'revoked' | 'expired';

// Doorkeeper's descriptions of an invalid token, which Mastodon sends as the error text too.
const INVALID_TOKEN: Record<InvalidTokenReason, string> = {
  unknown: 'The access token is invalid',
  revoked: 'The access token was revoked',
  expired: 'The access token expired',
};

/**
 * A missing, unknown, revoked or expired bearer token on a route that looks at tokens: 401 with
 * the description as the error text, and the `WWW-Authenticate` challenge Mastodon's OAuth
 * library (Doorkeeper) sends with it (RFC 6750 §3).
 */
export class InvalidTokenError extends ApiError {
  readonly reason: InvalidTokenReason;

  constructor(reason: InvalidTokenReason = 'unknown') {
    super(401, INVALID_TOKEN[reason]);
    this.name = 'InvalidTokenError';
    this.reason = reason;
  }

  /** The `WWW-Authenticate` header value, exactly as Doorkeeper writes it. */
  get challenge(): string {
    return `Bearer realm="Doorkeeper", error="invalid_token", error_description="${this.message}"`;
  }
}

/** Shorthand for throwing an InvalidTokenError. */
export function invalidToken(reason: InvalidTokenReason = 'unknown'): InvalidTokenError {
  return new InvalidTokenError(reason);
}
