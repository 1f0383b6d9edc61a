import { findAccountById } from '../../db/repos/accounts.js';
import { deleteMailToken, deleteUserWebSessions, findMailToken, findUserByEmail, lastMailAt, putMailToken, revokeUserTokens, type MailTokenRow } from '../../db/repos/mail.js';
import { emailTaken, findUserById, findUsersByAccountIds, updateUser, type UserRow } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import { forbidden, unprocessable } from '../../util/errors.js';
import { hashPasswordAsync } from '../../util/passwords.js';
import { PERMISSION } from '../../util/permissions.js';
import { validatePassword } from '../accounts/create.js';
import type { Deps } from '../deps.js';
import { hashSecret, randomSecret, type AuthContext } from '../oauth/tokens.js';
import { accountIdsWithPermission } from '../roles/access.js';
import { confirmationMail, passwordResetMail, pendingSignUpMail } from './messages.js';
import { queueMail } from './outbox.js';

/**
 * The mail of a login: confirming an e-mail address (a link with a one-time code, sent after a
 * sign-up that needs it and again on request), and resetting a forgotten password (a link sent
 * to the address, the new password set on a page). Codes are kept only as hashes, one per user and
 * purpose, and work once.
 */

/** How long a confirmation link works (Mastodon: two days). */
export const CONFIRMATION_TTL_MS = 2 * 86_400_000;
/** How long a password reset link works (Mastodon: six hours). */
export const RESET_TTL_MS = 6 * 3600_000;
/** A new password reset mail to the same user only after this: the form cannot be used to flood someone's inbox. */
export const RESET_INTERVAL_MS = 5 * 60_000;

const EMAIL_PATTERN = /^[^\s@,;:<>()[\]"\\]+@[^\s@,;:<>()[\]"\\]+\.[^\s@,;:<>()[\]"\\]+$/;

function usernameOf(deps: Deps, user: UserRow): string {
  return findAccountById(deps.db, user.account_id)?.username ?? 'user';
}

/** A new one-time code for a user and purpose (replacing the previous one); returns the code. */
function issueCode(deps: Deps, userId: string, purpose: MailTokenRow['purpose'], email: string | null, ttlMs: number): string {
  const code = randomSecret(32);
  const at = now();
  putMailToken(deps.db, { user_id: userId, purpose, token_hash: hashSecret(code), email, expires_at: at + ttlMs, created_at: at });
  return code;
}

/** The live code row a link carries, or undefined (unknown, used, or expired). */
function liveCode(deps: Deps, purpose: MailTokenRow['purpose'], code: string): MailTokenRow | undefined {
  if (code === '') return undefined;
  const row = findMailToken(deps.db, purpose, hashSecret(code));
  return row && row.expires_at > now() ? row : undefined;
}

/** Writes (and, with a mailer, sends) the confirmation link of a user's e-mail address. */
export function sendConfirmation(deps: Deps, user: UserRow): void {
  if (!user.email) return;
  const email = user.email;
  deps.db.transaction(() => {
    const code = issueCode(deps, user.id, 'confirmation', email, CONFIRMATION_TTL_MS);
    const link = `${deps.uris.base}/auth/confirmation?confirmation_token=${encodeURIComponent(code)}`;
    queueMail(deps, [{ kind: 'confirmation', to: email, userId: user.id, ...confirmationMail({ username: usernameOf(deps, user), domain: deps.uris.domain, link }) }]);
  });
}

/**
 * The user of a token issued to the app they signed up through, as the e-mail confirmation
 * methods want it (they work before the address is confirmed); 403 with Mastodon's words for any
 * other token.
 */
export function signUpUser(auth: AuthContext): UserRow {
  const user = auth.user;
  // As Mastodon compares them, a user made without an app (setup, the CLI) and a token without
  // one (the CLI's own) match.
  if (!user || user.created_by_application_id !== auth.applicationId) {
    throw forbidden('This method is only available to the application the user originally signed-up with');
  }
  return user;
}

/**
 * `POST /api/v1/emails/confirmations`: sends the confirmation link again, first changing the
 * address when `email` is given, as Mastodon: only for the app the user signed up through (403
 * "This method is only available to the application the user originally signed-up with"), and
 * only while unconfirmed (403). Without a mailer the link waits in the outbox for the owner.
 */
export function resendConfirmation(deps: Deps, auth: AuthContext, email: string | undefined): Record<string, never> {
  const user = signUpUser(auth);
  if (user.confirmed_at !== null) throw forbidden('This method is only available while the e-mail is awaiting confirmation');
  let current = user;
  const address = email?.trim();
  if (address && address.toLowerCase() !== (user.email ?? '').toLowerCase()) {
    if (!EMAIL_PATTERN.test(address) || address.length > 320) throw unprocessable('Email is invalid');
    if (emailTaken(deps.db, address)) throw unprocessable('Email has already been taken');
    deps.db.transaction(() => updateUser(deps.db, user.id, { email: address, updated_at: now() }));
    current = { ...user, email: address };
  }
  sendConfirmation(deps, current);
  return {};
}

/** How opening a confirmation link went. */
export type ConfirmationResult = 'confirmed' | 'invalid';

/**
 * Confirms the e-mail address a link's code was made for (`GET /auth/confirmation`): the login
 * may be used from now on (once approved, where sign-ups need approval: the staff are then told a
 * sign-up waits). An unknown, used or expired code changes nothing.
 */
export function confirmEmail(deps: Deps, code: string): ConfirmationResult {
  const row = liveCode(deps, 'confirmation', code);
  const user = row ? findUserById(deps.db, row.user_id) : undefined;
  if (!row || !user) return 'invalid';
  const at = now();
  deps.db.transaction(() => {
    updateUser(deps.db, user.id, { confirmed_at: at, email: row.email ?? user.email, updated_at: at });
    deleteMailToken(deps.db, user.id, 'confirmation');
  });
  if (user.approved === 0) notifyStaffOfPendingSignUp(deps, { ...user, confirmed_at: at });
  return 'confirmed';
}

/** The e-mail addresses of the staff whose role holds a permission (enabled, approved, confirmed), with their users. */
export function staffWithPermission(deps: Deps, permission: number): UserRow[] {
  const users = findUsersByAccountIds(deps.db, accountIdsWithPermission(deps, permission));
  return [...users.values()].filter((u) => u.email !== null && u.confirmed_at !== null && u.disabled === 0);
}

/** Tells the staff who approve sign-ups that one waits (Mastodon's "new account up for review"). */
export function notifyStaffOfPendingSignUp(deps: Deps, user: UserRow): void {
  const text = pendingSignUpMail({ username: usernameOf(deps, user), email: user.email, reason: user.sign_up_reason, domain: deps.uris.domain });
  queueMail(
    deps,
    staffWithPermission(deps, PERMISSION.manageUsers).map((staff) => ({ kind: 'pending_sign_up' as const, to: staff.email ?? '', userId: staff.id, ...text })),
  );
}

/**
 * Someone asked to reset the password of the login with this e-mail address (`POST
 * /auth/password`): a link is mailed when such a login exists and is enabled, at most every five
 * minutes. The caller answers the same whatever happened, so the form does not tell which
 * addresses have logins.
 */
export function requestPasswordReset(deps: Deps, email: string): void {
  const address = email.trim();
  if (address === '') return;
  const user = findUserByEmail(deps.db, address);
  if (!user || user.disabled === 1 || !user.email) return;
  const previous = lastMailAt(deps.db, user.id, 'password_reset');
  if (previous !== null && previous > now() - RESET_INTERVAL_MS) return;
  const to = user.email;
  deps.db.transaction(() => {
    const code = issueCode(deps, user.id, 'password_reset', null, RESET_TTL_MS);
    const link = `${deps.uris.base}/auth/password/edit?reset_password_token=${encodeURIComponent(code)}`;
    queueMail(deps, [{ kind: 'password_reset', to, userId: user.id, ...passwordResetMail({ username: usernameOf(deps, user), domain: deps.uris.domain, link }) }]);
  });
}

/** Whether a password reset link's code still works (for showing its form). */
export function resetCodeValid(deps: Deps, code: string): boolean {
  return liveCode(deps, 'password_reset', code) !== undefined;
}

/**
 * Sets a new password with a reset link's code (`POST /auth/password/edit`): 422 for a password
 * out of bounds or a confirmation that differs, false for a code that no longer works. Every
 * access token and browser session of the user ends, as Mastodon signs them out everywhere.
 */
export async function resetPassword(deps: Deps, code: string, password: string, confirmation: string): Promise<boolean> {
  if (!liveCode(deps, 'password_reset', code)) return false;
  validatePassword(password);
  if (password !== confirmation) throw unprocessable("Password confirmation doesn't match Password");
  const hash = await hashPasswordAsync(password);
  // Looked up again after hashing: the code may have been used meanwhile.
  const row = liveCode(deps, 'password_reset', code);
  if (!row) return false;
  const at = now();
  const revoked = deps.db.transaction(() => {
    updateUser(deps.db, row.user_id, { password_hash: hash, updated_at: at });
    deleteMailToken(deps.db, row.user_id, 'password_reset');
    deleteUserWebSessions(deps.db, row.user_id);
    return revokeUserTokens(deps.db, row.user_id, at);
  });
  for (const tokenId of revoked) deps.events.emit('token.revoked', { tokenId, userId: row.user_id });
  return true;
}
