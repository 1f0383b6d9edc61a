import type { UserRow } from '../../db/repos/users.js';

/**
 * E-mail confirmation: sign-ups through the API start unconfirmed when the instance has an SMTP
 * server to send the link with (core/mail/account-mail.ts sends it, and again on request);
 * without one, and for accounts made by the owner (setup, the CLI), an account is confirmed when
 * it is made.
 */

/** Whether the user's e-mail address is confirmed (`GET /api/v1/emails/check_confirmation`). */
export function emailConfirmed(user: UserRow): boolean {
  return user.confirmed_at !== null;
}
