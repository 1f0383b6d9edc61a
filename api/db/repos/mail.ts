import type { Db } from '../connection.js';
import type { PageSql } from '../paging.js';
import type { UserRow } from './users.js';

/** What a mail is: see api/core/mail/messages.ts. */
export type MailKind = 'confirmation' | 'password_reset' | 'approved' | 'pending_sign_up' | 'new_report';

/** Where a mail is: waiting for SMTP, sent, given up, or kept for the owner (no mailer). */
export type MailState = 'queued' | 'sent' | 'failed' | 'kept';

/** A row of `mail_outbox`. */
export interface MailRow {
  id: string;
  kind: MailKind;
  to_address: string;
  user_id: string | null;
  subject: string;
  body: string;
  state: MailState;
  attempts: number;
  next_attempt_at: number | null;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
}

/** A row of `user_mail_tokens`. */
export interface MailTokenRow {
  user_id: string;
  purpose: 'confirmation' | 'password_reset';
  token_hash: string;
  email: string | null;
  expires_at: number;
  created_at: number;
}

/** Writes a mail to the outbox. */
export function insertMail(db: Db, row: MailRow): void {
  db.query(
    `INSERT INTO mail_outbox (id, kind, to_address, user_id, subject, body, state, attempts, next_attempt_at, last_error, created_at, sent_at)
     VALUES (@id, @kind, @to_address, @user_id, @subject, @body, @state, @attempts, @next_attempt_at, @last_error, @created_at, @sent_at)`,
  ).run({ ...row });
}

/** Queued mail due at `at`, oldest first. */
export function dueMail(db: Db, at: number, limit: number): MailRow[] {
  return db.query<MailRow>("SELECT * FROM mail_outbox WHERE state = 'queued' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?").all(at, limit);
}

/** Moves queued mail's next attempt to `until` (a lease while it is being sent). */
export function leaseMail(db: Db, ids: readonly string[], until: number): void {
  db.query("UPDATE mail_outbox SET next_attempt_at = ? WHERE state = 'queued' AND id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))").run(until, JSON.stringify(ids));
}

/** Marks a mail sent. */
export function markMailSent(db: Db, id: string, attempts: number, at: number): void {
  db.query("UPDATE mail_outbox SET state = 'sent', attempts = ?, sent_at = ?, next_attempt_at = NULL, last_error = NULL WHERE id = ?").run(attempts, at, id);
}

/** Marks a mail given up, with why. */
export function markMailFailed(db: Db, id: string, attempts: number, error: string): void {
  db.query("UPDATE mail_outbox SET state = 'failed', attempts = ?, next_attempt_at = NULL, last_error = ? WHERE id = ?").run(attempts, error, id);
}

/** Sets a failed attempt's retry. */
export function rescheduleMail(db: Db, id: string, attempts: number, at: number, error: string): void {
  db.query('UPDATE mail_outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?').run(attempts, at, error, id);
}

/** When the latest mail of a kind to a user was written, or null. */
export function lastMailAt(db: Db, userId: string, kind: MailKind): number | null {
  return db.query<{ at: number | null }>('SELECT max(created_at) AS at FROM mail_outbox WHERE user_id = ? AND kind = ?').get(userId, kind)?.at ?? null;
}

/** A page of the outbox, newest first (keyset paging by id). */
export function mailPage(db: Db, page: PageSql): MailRow[] {
  return db.query<MailRow>(`SELECT * FROM mail_outbox WHERE 1 = 1 ${page.where} ${page.orderLimit}`).all({ ...page.params });
}

/** Removes mail written before `before` that is done with (sent, failed or kept): the outbox does not grow forever. */
export function pruneMail(db: Db, before: number): number {
  return db.query("DELETE FROM mail_outbox WHERE created_at < ? AND state <> 'queued'").run(before).changes;
}

/** Stores a user's one-time code for a purpose, replacing the previous one. */
export function putMailToken(db: Db, row: MailTokenRow): void {
  db.query(
    `INSERT INTO user_mail_tokens (user_id, purpose, token_hash, email, expires_at, created_at)
     VALUES (@user_id, @purpose, @token_hash, @email, @expires_at, @created_at)
     ON CONFLICT (user_id, purpose) DO UPDATE SET token_hash = excluded.token_hash, email = excluded.email,
       expires_at = excluded.expires_at, created_at = excluded.created_at`,
  ).run({ ...row });
}

/** A one-time code by its hash and purpose. */
export function findMailToken(db: Db, purpose: MailTokenRow['purpose'], hash: string): MailTokenRow | undefined {
  return db.query<MailTokenRow>('SELECT * FROM user_mail_tokens WHERE purpose = ? AND token_hash = ?').get(purpose, hash);
}

/** Removes a user's code for a purpose (used). */
export function deleteMailToken(db: Db, userId: string, purpose: MailTokenRow['purpose']): void {
  db.query('DELETE FROM user_mail_tokens WHERE user_id = ? AND purpose = ?').run(userId, purpose);
}

/** The user signing in with an e-mail address (case-insensitive). */
export function findUserByEmail(db: Db, email: string): UserRow | undefined {
  return db.query<UserRow>('SELECT * FROM users WHERE lower(email) = lower(?)').get(email);
}

/** Revokes every live access token of a user (a password reset); returns their ids. */
export function revokeUserTokens(db: Db, userId: string, at: number): string[] {
  return db
    .query<{ id: string }>('UPDATE oauth_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL RETURNING id')
    .all(at, userId)
    .map((r) => r.id);
}

/** Ends every browser session of a user. */
export function deleteUserWebSessions(db: Db, userId: string): void {
  db.query('DELETE FROM web_sessions WHERE user_id = ?').run(userId);
}
