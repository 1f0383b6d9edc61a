import { timingSafeEqual } from 'node:crypto';
import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import { deleteExpiredWebSessions, deleteWebSession, findWebSessionByHash, insertWebSession, type WebSessionRow } from '../../db/repos/oauth.js';
import { findUserById, findUserByLogin, updateUser, type UserRow } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import { hashPasswordAsync, verifyPassword } from '../../util/passwords.js';
import type { Deps } from '../deps.js';
import { hashSecret, randomSecret } from './tokens.js';

/** How long a browser stays signed in on the login, consent and setup pages. */
export const WEB_SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

/** A signed-in browser: its session row, user and account. */
export interface WebSession {
  session: WebSessionRow;
  user: UserRow;
  account: AccountRow;
}

/** Why a sign-in was refused. Only `invalid` is shown before the password has been proven right. */
export type SignInRefusal = 'invalid' | 'pending' | 'disabled';

/** The result of checking a login and password. */
export type SignInResult = { ok: true; user: UserRow } | { ok: false; reason: SignInRefusal };

/** Why a user may not use their login, or null when they may. */
export function userRefusal(deps: Deps, user: UserRow): Exclude<SignInRefusal, 'invalid'> | null {
  if (user.disabled) return 'disabled';
  const account = findAccountById(deps.db, user.account_id);
  if (!account || account.suspended_at !== null) return 'disabled';
  if (!user.approved) return 'pending';
  return null;
}

let decoyHash: Promise<string> | null = null;

/**
 * Checks a login (username or e-mail) and password. An unknown login still costs one password
 * check, so timing does not tell which part was wrong. A pending or disabled user is refused
 * (the reason is given only with the right password).
 */
export async function checkCredentials(deps: Deps, login: string, password: string): Promise<SignInResult> {
  const user = await verifyLogin(deps, login, password);
  if (!user) return { ok: false, reason: 'invalid' };
  const refusal = userRefusal(deps, user);
  if (refusal) return { ok: false, reason: refusal };
  return { ok: true, user };
}

/**
 * The user a login (username or e-mail) and password belong to, or null when either is wrong.
 * An unknown login still costs one password check, so timing does not tell which part was wrong.
 */
export async function verifyLogin(deps: Deps, login: string, password: string): Promise<UserRow | null> {
  const user = login ? findUserByLogin(deps.db, login.trim().replace(/^@/, '')) : undefined;
  // Made once, on the thread pool: a synchronous hash would stall the event loop at the first failed sign-in.
  decoyHash ??= hashPasswordAsync(randomSecret());
  const valid = await verifyPassword(password, user?.password_hash ?? (await decoyHash));
  return user && valid ? user : null;
}

/**
 * Starts a browser session for a user who has signed in; returns the cookie value (only its hash
 * is stored) and the session with its CSRF token. Expired sessions are cleared on the way.
 */
export function startWebSession(deps: Deps, userId: string): { cookie: string; session: WebSessionRow } {
  const cookie = randomSecret();
  const at = now();
  const session: WebSessionRow = {
    id: newId(at),
    user_id: userId,
    session_hash: hashSecret(cookie),
    csrf_token: randomSecret(),
    expires_at: at + WEB_SESSION_TTL_MS,
    created_at: at,
  };
  deps.db.transaction(() => {
    deleteExpiredWebSessions(deps.db, at);
    insertWebSession(deps.db, session);
    updateUser(deps.db, userId, { last_sign_in_at: at });
  });
  return { cookie, session };
}

/**
 * The session behind a cookie value, or null when it is unknown or expired, or its user may no
 * longer sign in (disabled, suspended, not approved).
 */
export function resolveWebSession(deps: Deps, cookie: string | undefined): WebSession | null {
  if (!cookie) return null;
  const session = findWebSessionByHash(deps.db, hashSecret(cookie));
  if (!session || session.expires_at <= now()) return null;
  const user = findUserById(deps.db, session.user_id);
  if (!user || userRefusal(deps, user)) return null;
  const account = findAccountById(deps.db, user.account_id);
  if (!account) return null;
  return { session, user, account };
}

/** Ends a browser session (sign-out, or a new sign-in replacing it). */
export function endWebSession(deps: Deps, cookie: string | undefined): void {
  if (!cookie) return;
  const session = findWebSessionByHash(deps.db, hashSecret(cookie));
  if (session) deleteWebSession(deps.db, session.id);
}

/** Compares two secrets (CSRF tokens) in constant time; false when either is missing. */
export function sameSecret(expected: string | undefined, given: string | undefined): boolean {
  if (!expected || !given) return false;
  const a = Buffer.from(hashSecret(expected), 'hex');
  const b = Buffer.from(hashSecret(given), 'hex');
  return timingSafeEqual(a, b);
}
