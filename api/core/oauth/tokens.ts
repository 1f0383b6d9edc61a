import { hash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/connection.js';
import { changeStamp, type ChangeStamp } from '../../db/repos/changes.js';
import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import { findTokenByHash, insertToken, touchToken, type TokenRow } from '../../db/repos/tokens.js';
import { findUserById, type UserRow } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import type { InvalidTokenReason } from './errors.js';
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
  return hash('sha256', secret, 'hex');
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

/** How often a token's last_used_at is written, at most. */
const TOUCH_INTERVAL_MS = 60_000;
/** Bounds of the authentication cache: entries kept, and how long one is trusted at most. */
const CACHE_ENTRIES = 500;
const CACHE_TTL_MS = 60_000;

interface CachedAuth {
  check: { auth: AuthContext; refusal: null };
  cachedAt: number;
}

/** Per-database authentication cache: valid while nothing at all was written (see ChangeStamp). */
interface AuthCache {
  stamp: ChangeStamp;
  entries: Map<string, CachedAuth>;
  /** When each token's last_used_at was last written (or read as recent), by token id. */
  touched: Map<string, number>;
}

const caches = new WeakMap<Db, AuthCache>();

/**
 * The cache of a database, emptied first if anything was written since it was filled: a revoked
 * token, a disabled, suspended or unapproved user, a changed role, profile, setting or counter,
 * by this process or another (the CLI), so a cached caller is always exactly what the database
 * says now.
 */
function authCache(db: Db): AuthCache {
  const stamp = changeStamp(db);
  let cache = caches.get(db);
  if (!cache) {
    cache = { stamp, entries: new Map(), touched: new Map() };
    caches.set(db, cache);
  } else if (cache.stamp !== stamp) {
    cache.stamp = stamp;
    cache.entries.clear();
  }
  return cache;
}

/** A bearer token resolved: its caller, or why it was refused. */
export type TokenCheck = { auth: AuthContext; refusal: null } | { auth: null; refusal: InvalidTokenReason };

const UNKNOWN: TokenCheck = { auth: null, refusal: 'unknown' };
const EXPIRED: TokenCheck = { auth: null, refusal: 'expired' };

/**
 * Resolves a bearer token to its caller, or null when the token is unknown, revoked or expired,
 * or belongs to a user who may not use the API (disabled, or an account that is suspended).
 * Callers are cached for as long as the database has not changed (and a minute at most); expiry
 * is checked on every call.
 */
export function authenticate(deps: Deps, accessToken: string): AuthContext | null {
  return checkToken(deps, accessToken).auth;
}

/**
 * As `authenticate`, with the reason of a refusal (Doorkeeper's: revoked, expired, or unknown,
 * which covers a token of a user who may not sign in). A cached caller costs a map lookup and a
 * change stamp that the request's other caches share (see changeStamp): no query, no hash.
 */
export function checkToken(deps: Deps, accessToken: string): TokenCheck {
  const at = now();
  const cache = authCache(deps.db);
  // Keyed by the token itself: a hit costs no hash. Only the hash is ever stored (a copy of the
  // database gives no token away); a token in this process's memory for a minute at most is no
  // more exposed than the requests that carry it.
  const hit = cache.entries.get(accessToken);
  let check: TokenCheck;
  if (hit && at - hit.cachedAt < CACHE_TTL_MS && at >= hit.cachedAt) {
    const expiresAt = hit.check.auth.token.expires_at;
    if (expiresAt !== null && expiresAt <= at) return EXPIRED;
    check = hit.check;
  } else {
    check = loadAuth(deps, hashSecret(accessToken), at);
    if (!check.auth) return check;
    if (cache.entries.size >= CACHE_ENTRIES) cache.entries.clear();
    cache.entries.set(accessToken, { check, cachedAt: at });
  }
  touch(deps, cache, check.auth.token, at);
  return check;
}

function loadAuth(deps: Deps, tokenHash: string, at: number): TokenCheck {
  const token = findTokenByHash(deps.db, tokenHash);
  if (!token) return UNKNOWN;
  if (token.revoked_at !== null) return { auth: null, refusal: 'revoked' };
  if (token.expires_at !== null && token.expires_at <= at) return EXPIRED;
  let user: UserRow | null = null;
  let account: AccountRow | null = null;
  if (token.user_id !== null) {
    user = findUserById(deps.db, token.user_id) ?? null;
    if (!user || user.disabled) return UNKNOWN;
    account = findAccountById(deps.db, user.account_id) ?? null;
    if (!account || account.suspended_at !== null) return UNKNOWN;
  }
  return { auth: { token, scopes: new Set(parseScopes(token.scopes)), applicationId: token.application_id, user, account }, refusal: null };
}

/**
 * Records the token's use at most once a minute: the UPDATE runs only when the stored
 * last_used_at (as read, or as last written here) is older than that, which is exactly when the
 * statement's own condition would let it write.
 */
function touch(deps: Deps, cache: AuthCache, token: TokenRow, at: number): void {
  const last = Math.max(cache.touched.get(token.id) ?? Number.NEGATIVE_INFINITY, token.last_used_at ?? Number.NEGATIVE_INFINITY);
  if (last >= at - TOUCH_INTERVAL_MS) return;
  touchToken(deps.db, token.id, at);
  if (cache.touched.size >= CACHE_ENTRIES) cache.touched.clear();
  // The write moves the change stamp, so the next call reloads: once a minute per token.
  cache.touched.set(token.id, at);
}
