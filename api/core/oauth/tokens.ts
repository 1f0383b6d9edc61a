import { createHash, randomBytes } from 'node:crypto';
import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import { findTokenByHash, insertToken, touchToken, type TokenRow } from '../../db/repos/tokens.js';
import { findUserById, type UserRow } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { parseScopes } from './scopes.js';

/** Who is calling: the token, its scopes and, for user tokens, the user and their account. */
export interface AuthContext {
  token: TokenRow;
  scopes: ReadonlySet<string>;
  applicationId: string | null;
  /** Null for an app-only token (client_credentials). */
  user: UserRow | null;
  account: AccountRow | null;
}

/** SHA-256 of a secret, hex; tokens, codes and sessions are stored only as this. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A new random secret (token, code, client id), URL-safe. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** The result of issuing a token: the secret values are only ever returned here. */
export interface IssuedToken {
  row: TokenRow;
  accessToken: string;
  refreshToken: string | null;
}

/** Issues an access token (with a refresh token for user tokens) for an application and user. */
export function issueToken(
  deps: Deps,
  args: { applicationId: string | null; userId: string | null; scopes: readonly string[]; withRefresh?: boolean; expiresInMs?: number | null },
): IssuedToken {
  const accessToken = randomSecret();
  const refreshToken = args.withRefresh ? randomSecret() : null;
  const createdAt = now();
  const row: TokenRow = {
    id: newId(createdAt),
    application_id: args.applicationId,
    user_id: args.userId,
    token_hash: hashSecret(accessToken),
    refresh_token_hash: refreshToken ? hashSecret(refreshToken) : null,
    scopes: args.scopes.join(' '),
    expires_at: args.expiresInMs ? createdAt + args.expiresInMs : null,
    revoked_at: null,
    last_used_at: null,
    created_at: createdAt,
  };
  insertToken(deps.db, row);
  return { row, accessToken, refreshToken };
}

/**
 * Resolves a bearer token to its caller, or null when the token is unknown, revoked or expired,
 * or belongs to a user who may not use the API (disabled, or an account that is suspended).
 */
export function authenticate(deps: Deps, accessToken: string): AuthContext | null {
  const token = findTokenByHash(deps.db, hashSecret(accessToken));
  const at = now();
  if (!token || token.revoked_at !== null || (token.expires_at !== null && token.expires_at <= at)) return null;
  let user: UserRow | null = null;
  let account: AccountRow | null = null;
  if (token.user_id !== null) {
    user = findUserById(deps.db, token.user_id) ?? null;
    if (!user || user.disabled) return null;
    account = findAccountById(deps.db, user.account_id) ?? null;
    if (!account || account.suspended_at !== null) return null;
  }
  touchToken(deps.db, token.id, at);
  return { token, scopes: new Set(parseScopes(token.scopes)), applicationId: token.application_id, user, account };
}
