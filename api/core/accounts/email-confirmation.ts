import type { UserRow } from '../../db/repos/users.js';
import { ApiError, forbidden } from '../../util/errors.js';

/**
 * E-mail confirmation: Hearth confirms every account when it is made (sign-up hands out a working
 * token, with no e-mail step), and has no mailer yet, so there is never a confirmation to resend.
 */

/** Whether the user's e-mail address is confirmed (`GET /api/v1/emails/check_confirmation`). */
export function emailConfirmed(user: UserRow): boolean {
  return user.confirmed_at !== null;
}

/**
 * `POST /api/v1/emails/confirmations`: for a confirmed user, Mastodon's documented 403. An
 * unconfirmed user cannot exist yet; should one appear before the instance can send e-mail, the
 * answer says so rather than pretending to have sent anything.
 */
export function resendConfirmation(user: UserRow): never {
  if (emailConfirmed(user)) throw forbidden('This method is only available while the e-mail is awaiting confirmation');
  throw new ApiError(503, 'This instance cannot send e-mail');
}
