import { withRelaxedDurability } from '../../db/connection.js';
import type { PageBounds } from '../../db/paging.js';
import { pageSql } from '../../db/paging.js';
import { dueMail, insertMail, leaseMail, mailPage, markMailFailed, markMailSent, pruneMail, rescheduleMail, type MailKind, type MailRow } from '../../db/repos/mail.js';
import type { UserRole } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import { forbidden } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { queuePump, type PumpState } from '../jobs/queue-pump.js';
import { MailSendError, sendMail } from './transport.js';

/**
 * The outbox: every e-mail the instance writes is stored (mail_outbox) before anything else. With
 * an SMTP server configured it is queued and sent off the request, on the next turn of the event
 * loop, retried with growing pauses when the server cannot be reached or answers 4xx, and given
 * up on a 5xx or after MAX_MAIL_ATTEMPTS; the job scheduler picks up what is due again (retries,
 * and what a restart left). Without one it is kept, for the owner to read in their app
 * (`GET /api/hearth/mail`) or with `hearth mail list`, and nothing fails.
 */

/** A message to write. */
export interface NewMail {
  kind: MailKind;
  to: string;
  /** The recipient, when a user. */
  userId: string | null;
  subject: string;
  body: string;
}

/** Attempts per message at most. */
export const MAX_MAIL_ATTEMPTS = 8;

/** While a message is being sent, it is due again only after this (a restart sends it then). */
const LEASE_MS = 10 * 60_000;

/** Messages sent at once. */
const MAX_IN_FLIGHT = 4;

/** How long finished messages stay in the outbox. */
const KEEP_MS = 90 * 86_400_000;

/** The pause before attempt `attempts + 1`: a minute, then growing as the square of the count (4, 9, 16, … minutes). */
export function mailRetryDelayMs(attempts: number): number {
  return Math.max(1, attempts) ** 2 * 60_000;
}

const mailPump = queuePump('mail delivery', pump);

/** The sender: the configured one, or `Hearth <hearth@host>` with the instance's host name. */
export function mailSender(deps: Deps): string {
  const configured = deps.config.mail?.from;
  if (configured) return configured;
  const host = deps.uris.domain.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return `Hearth <hearth@${host}>`;
}

/**
 * Writes messages to the outbox (in the caller's transaction, if any) and, with a mailer, starts
 * sending. Returns the rows written.
 */
export function queueMail(deps: Deps, messages: readonly NewMail[]): MailRow[] {
  if (messages.length === 0) return [];
  const at = now();
  const mailer = deps.config.mail !== null;
  const rows = messages.map(
    (m): MailRow => ({
      id: newId(at),
      kind: m.kind,
      to_address: m.to,
      user_id: m.userId,
      subject: m.subject,
      body: m.body,
      state: mailer ? 'queued' : 'kept',
      attempts: 0,
      next_attempt_at: mailer ? at : null,
      last_error: null,
      created_at: at,
      sent_at: null,
    }),
  );
  deps.db.transaction(() => {
    for (const row of rows) insertMail(deps.db, row);
  });
  if (mailer) kickMailDelivery(deps);
  return rows;
}

/** Sends what is due, on the next turn of the event loop; a call while sending makes it look again when done. */
export function kickMailDelivery(deps: Deps): void {
  if (deps.config.mail === null) return;
  mailPump.kick(deps);
}

function record(deps: Deps, write: () => void): void {
  if (!deps.db.raw.open) return;
  // Sending again after a power cut is the worst a lost write does.
  withRelaxedDurability(() => deps.db.transaction(write));
}

function pump(deps: Deps, state: PumpState): void {
  const config = deps.config.mail;
  if (!config || !deps.db.raw.open) return;
  const room = MAX_IN_FLIGHT - state.inFlight.size;
  if (room <= 0) return;
  const at = now();
  const due = dueMail(deps.db, at, room).filter((m) => !state.inFlight.has(m.id));
  if (due.length === 0) return;
  record(deps, () => leaseMail(deps.db, due.map((m) => m.id), at + LEASE_MS));
  const from = mailSender(deps);
  for (const mail of due) {
    state.inFlight.add(mail.id);
    sendMail(config, { from, to: mail.to_address, subject: mail.subject, text: mail.body }).then(
      () => settle(deps, state, mail, null),
      (err: unknown) => settle(deps, state, mail, err),
    );
  }
}

function settle(deps: Deps, state: PumpState, mail: MailRow, err: unknown): void {
  state.inFlight.delete(mail.id);
  const attempts = mail.attempts + 1;
  if (err === null) {
    record(deps, () => markMailSent(deps.db, mail.id, attempts, now()));
  } else {
    const message = (err as Error).message;
    const permanent = err instanceof MailSendError && err.permanent;
    if (permanent || attempts >= MAX_MAIL_ATTEMPTS) {
      record(deps, () => markMailFailed(deps.db, mail.id, attempts, message));
      console.warn(`mail ${mail.id} (${mail.kind}) to ${mail.to_address} given up after ${attempts} attempt(s): ${message}`);
    } else {
      record(deps, () => rescheduleMail(deps.db, mail.id, attempts, now() + mailRetryDelayMs(attempts), message));
    }
  }
  kickMailDelivery(deps);
}

/** Scheduler task: sends the mail that is due, and forgets finished mail older than 90 days. */
export function resumeMailDelivery(deps: Deps): void {
  kickMailDelivery(deps);
  const at = now();
  // Once an hour is plenty for the clean-up.
  if (at - (lastPrune.get(deps) ?? 0) >= 3600_000) {
    lastPrune.set(deps, at);
    record(deps, () => void pruneMail(deps.db, at - KEEP_MS));
  }
}

const lastPrune = new WeakMap<Deps, number>();

/**
 * Refuses (403) anyone but the owner: the outbox holds other people's confirmation and password
 * links, which only the instance's owner may pass on.
 */
export function requireMailReader(user: { role: UserRole }): void {
  if (user.role !== 'owner') throw forbidden();
}

/** A mail as the owner reads it. */
export interface MailView {
  id: string;
  kind: MailKind;
  to: string;
  subject: string;
  body: string;
  state: MailRow['state'];
  attempts: number;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

/** A page of the outbox, newest first. */
export function listMail(deps: Deps, page: PageBounds): MailView[] {
  const p = pageSql('id', page);
  const rows = mailPage(deps.db, p);
  if (p.reverse) rows.reverse();
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    to: r.to_address,
    subject: r.subject,
    body: r.body,
    state: r.state,
    attempts: r.attempts,
    last_error: r.last_error,
    created_at: new Date(r.created_at).toISOString(),
    sent_at: r.sent_at === null ? null : new Date(r.sent_at).toISOString(),
  }));
}
