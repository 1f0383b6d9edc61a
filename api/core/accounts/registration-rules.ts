import { findAccountByHandle } from '../../db/repos/accounts.js';
import { emailTaken } from '../../db/repos/users.js';
import { ApiError } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { charLength, isBlank } from '../filters/problems.js';
import { isReservedUsername, PASSWORD_MAX, PASSWORD_MIN, USERNAME_MAX, USERNAME_PATTERN } from './create.js';

/**
 * The sign-up form's rules (`POST /api/v1/accounts`) as Mastodon 4.5 checks them: the new User
 * record with its Account and invite request, every validator run, every failure reported. The
 * answer is Mastodon's ValidationErrorFormatter: `error` is Rails' "Validation failed: " and the
 * full messages in the order the validators ran, `details` the same failures per parameter
 * (`account.username` reported as `username`, `invite_request.text` as `reason`), each with
 * `ERR_<TYPE>` and the message. The order is the model's: Devise's e-mail and password checks,
 * then the account's username, the invite request's text, and the agreement.
 */

/** Longest sign-up reason (Mastodon's UserInviteRequest::TEXT_SIZE_LIMIT). */
export const REASON_MAX = 420;

// Devise's e-mail format; Mastodon's stricter EmailAddressValidator also refuses %, ',' and '"'.
const EMAIL_PATTERN = /^[^@\s]+@[^@\s]+$/;
const EMAIL_FORBIDDEN = /[%,"]/;
const LOCALE_PATTERN = /^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/;

/** One failed rule: the parameter it belongs to, Rails' error type and message. */
interface Failure {
  param: 'email' | 'password' | 'username' | 'reason' | 'agreement';
  type: string;
  message: string;
}

/** Rails' human names of the attributes (Mastodon's activerecord.en.yml). */
const LABELS: Record<Failure['param'], string> = {
  email: 'E-mail address',
  password: 'Password',
  username: 'Username',
  reason: 'Reason',
  agreement: 'Service agreement',
};

/** What the form gives, after type checks. */
export interface RegistrationForm {
  username?: string | undefined;
  email?: string | undefined;
  password?: string | undefined;
  agreement?: boolean | undefined;
  reason?: string | undefined;
}

function emailFailures(deps: Deps, email: string): Failure[] {
  // Devise: presence, then uniqueness and format, both skipped for a blank address.
  if (isBlank(email)) return [{ param: 'email', type: 'blank', message: "can't be blank" }];
  // Devise strips the address before it validates it.
  const address = email.trim();
  const out: Failure[] = [];
  if (emailTaken(deps.db, address)) out.push({ param: 'email', type: 'taken', message: 'has already been taken' });
  if (!EMAIL_PATTERN.test(address) || EMAIL_FORBIDDEN.test(address) || address.length > 320) out.push({ param: 'email', type: 'invalid', message: 'is invalid' });
  return out;
}

function passwordFailures(password: string): Failure[] {
  if (isBlank(password)) return [{ param: 'password', type: 'blank', message: "can't be blank" }];
  const length = charLength(password);
  if (length < PASSWORD_MIN) return [{ param: 'password', type: 'too_short', message: `is too short (minimum is ${PASSWORD_MIN} characters)` }];
  if (length > PASSWORD_MAX) return [{ param: 'password', type: 'too_long', message: `is too long (maximum is ${PASSWORD_MAX} characters)` }];
  return [];
}

function usernameFailures(deps: Deps, username: string): Failure[] {
  // Account: presence; the rest only for a name given (a blank one is no change to validate).
  if (isBlank(username)) return [{ param: 'username', type: 'blank', message: "can't be blank" }];
  const out: Failure[] = [];
  if (findAccountByHandle(deps.db, username, null)) out.push({ param: 'username', type: 'taken', message: 'has already been taken' });
  if (!USERNAME_PATTERN.test(username)) out.push({ param: 'username', type: 'invalid', message: 'must contain only letters, numbers and underscores' });
  if (charLength(username) > USERNAME_MAX) out.push({ param: 'username', type: 'too_long', message: `is too long (maximum is ${USERNAME_MAX} characters)` });
  if (isReservedUsername(username)) out.push({ param: 'username', type: 'reserved', message: 'is reserved' });
  return out;
}

function reasonFailures(reason: string | undefined, required: boolean): Failure[] {
  // The invite request exists only when a reason is given or one is required.
  if (isBlank(reason)) return required ? [{ param: 'reason', type: 'blank', message: "can't be blank" }] : [];
  if (charLength(reason ?? '') > REASON_MAX) return [{ param: 'reason', type: 'too_long', message: `is too long (maximum is ${REASON_MAX} characters)` }];
  return [];
}

/**
 * Checks the form as a whole and throws Mastodon's 422 when anything fails (nothing written).
 * `reasonRequired`: registrations need approval and no invite was given.
 */
export function checkRegistrationForm(deps: Deps, form: RegistrationForm, reasonRequired: boolean): void {
  const failures = [
    ...emailFailures(deps, form.email ?? ''),
    ...passwordFailures(form.password ?? ''),
    ...usernameFailures(deps, form.username ?? ''),
    ...reasonFailures(form.reason, reasonRequired),
    ...(form.agreement === true ? [] : [{ param: 'agreement', type: 'accepted', message: 'must be accepted' } satisfies Failure]),
  ];
  if (failures.length === 0) return;
  const details: Record<string, { error: string; description: string }[]> = {};
  for (const f of failures) (details[f.param] ??= []).push({ error: `ERR_${f.type.toUpperCase()}`, description: f.message });
  const message = failures.map((f) => `${LABELS[f.param]} ${f.message}`).join(', ');
  throw new ApiError(422, `Validation failed: ${message}`, { extra: { details } });
}

/**
 * The locale to store: Mastodon keeps a locale it has and quietly drops any other (the User's
 * `normalizes :locale`), so an unknown one is no error.
 */
export function registrationLocale(locale: string | undefined): string | null {
  return locale && LOCALE_PATTERN.test(locale) ? locale : null;
}
