import { findAccountByHandle } from '../../db/repos/accounts.js';
import { findInviteByCode, useInvite, type InviteRow } from '../../db/repos/invites.js';
import { findAppById } from '../../db/repos/oauth.js';
import { emailTaken, findUserById } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import { ApiError, forbidden } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { parseScopes } from '../oauth/scopes.js';
import { issueToken, type IssuedToken } from '../oauth/tokens.js';
import { emitLocalUserCreated, insertLocalUser, isReservedUsername, PASSWORD_MAX, PASSWORD_MIN, prepareLocalUser, USERNAME_MAX, USERNAME_PATTERN } from './create.js';

/** What `POST /api/v1/accounts` receives, after type checks. */
export interface RegistrationInput {
  username?: string | undefined;
  email?: string | undefined;
  password?: string | undefined;
  agreement?: boolean | undefined;
  locale?: string | undefined;
  reason?: string | undefined;
  inviteCode?: string | undefined;
}

/** Who asks: the application behind the token, and the token's scopes (fallback for token scopes). */
export interface RegistrationCaller {
  applicationId: string | null;
  scopes: readonly string[];
  ip: string | null;
}

/** Longest sign-up reason kept, as Mastodon limits invite requests. */
export const REASON_MAX = 1000;
const EMAIL_PATTERN = /^[^@\s]+@[^@\s]+$/;
const LOCALE_PATTERN = /^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/;

type Details = Record<string, { error: string; description: string }[]>;

/** The invite a code stands for, when it can still be used now. */
function usableInvite(deps: Deps, code: string | undefined): InviteRow | null {
  if (!code) return null;
  const invite = findInviteByCode(deps.db, code);
  if (!invite) return null;
  const at = now();
  if (invite.max_uses !== null && invite.uses >= invite.max_uses) return null;
  if (invite.expires_at !== null && invite.expires_at <= at) return null;
  // An invite from someone who can no longer use the server is void, as in Mastodon.
  const inviter = findUserById(deps.db, invite.user_id);
  if (!inviter || inviter.disabled === 1 || inviter.approved === 0) return null;
  return invite;
}

/** Every problem with the sign-up form at once, as Mastodon's `details` lists them. */
function validate(deps: Deps, input: RegistrationInput, reasonRequired: boolean): Details {
  const details: Details = {};
  const add = (field: string, error: string, description: string) => (details[field] ??= []).push({ error, description });
  const username = input.username ?? '';
  if (!username) add('username', 'ERR_BLANK', "can't be blank");
  else if (username.length > USERNAME_MAX) add('username', 'ERR_TOO_LONG', `is too long (maximum is ${USERNAME_MAX} characters)`);
  else if (!USERNAME_PATTERN.test(username)) add('username', 'ERR_INVALID', 'must contain only letters, numbers and underscores');
  else if (isReservedUsername(username)) add('username', 'ERR_RESERVED', 'is reserved');
  else if (findAccountByHandle(deps.db, username, null)) add('username', 'ERR_TAKEN', 'has already been taken');
  const email = input.email ?? '';
  if (!email) add('email', 'ERR_BLANK', "can't be blank");
  else if (!EMAIL_PATTERN.test(email) || email.length > 320) add('email', 'ERR_INVALID', 'is invalid');
  else if (emailTaken(deps.db, email)) add('email', 'ERR_TAKEN', 'has already been taken');
  const password = input.password ?? '';
  if (!password) add('password', 'ERR_BLANK', "can't be blank");
  else if (password.length < PASSWORD_MIN) add('password', 'ERR_TOO_SHORT', `is too short (minimum is ${PASSWORD_MIN} characters)`);
  else if (password.length > PASSWORD_MAX) add('password', 'ERR_TOO_LONG', `is too long (maximum is ${PASSWORD_MAX} characters)`);
  if (input.agreement !== true) add('agreement', 'ERR_ACCEPTED', 'must be accepted');
  if (input.locale && !LOCALE_PATTERN.test(input.locale)) add('locale', 'ERR_INCLUSION', 'is not included in the list');
  const reason = input.reason?.trim() ?? '';
  if (reasonRequired && !reason) add('reason', 'ERR_BLANK', "can't be blank");
  else if (reason.length > REASON_MAX) add('reason', 'ERR_TOO_LONG', `is too long (maximum is ${REASON_MAX} characters)`);
  return details;
}

function labelOf(field: string): string {
  const label = field.replace(/_/g, ' ');
  return label.charAt(0).toUpperCase() + label.slice(1);
}

function validationError(details: Details): ApiError {
  const message = Object.entries(details)
    .flatMap(([field, problems]) => problems.map((p) => `${labelOf(field)} ${p.description}`))
    .join(', ');
  return new ApiError(422, `Validation failed: ${message}`, { extra: { details } });
}

/**
 * Registers a new local user for an app, as `POST /api/v1/accounts` does: allowed when
 * registrations are open or need approval, or with a valid invite when they are closed (403
 * otherwise). The form is checked as a whole (422 with `details`); then the user, the invite use
 * and a token for the app are written in one transaction. With approval, the user exists but the
 * token is refused ("pending approval") until an admin approves; an invite skips approval.
 */
export function registerAccount(deps: Deps, caller: RegistrationCaller, input: RegistrationInput): { token: IssuedToken; userId: string; accountId: string; approved: boolean } {
  const mode = deps.config.registrations;
  const invite = usableInvite(deps, input.inviteCode);
  if (mode === 'closed' && !invite) throw forbidden();
  const approved = mode === 'open' || invite !== null;
  const details = validate(deps, input, mode === 'approval' && !invite);
  if (Object.keys(details).length > 0) throw validationError(details);

  const prepared = prepareLocalUser({
    username: input.username ?? '',
    password: input.password ?? '',
    email: input.email,
    locale: input.locale || null,
    approved,
    reason: input.reason?.trim() || null,
    inviteId: invite?.id ?? null,
    ip: caller.ip,
  });
  // The token carries the scopes the app registered, as Mastodon issues it.
  const app = caller.applicationId ? findAppById(deps.db, caller.applicationId) : undefined;
  const scopes = app ? parseScopes(app.scopes) : [...caller.scopes];
  const result = deps.db.transaction(() => {
    const created = insertLocalUser(deps, prepared);
    // The last use of an invite may have gone to someone else since it was checked.
    if (invite && useInvite(deps.db, invite.id, now()) === 0) throw forbidden();
    const token = issueToken(deps, { applicationId: caller.applicationId, userId: created.userId, scopes, withRefresh: false });
    return { ...created, token };
  });
  emitLocalUserCreated(deps, prepared);
  return { ...result, approved };
}
