import type { Db } from '../connection.js';

/** One inbox our deliveries are failing to reach (table `delivery_failures`). */
export interface DeliveryFailureRow {
  inbox: string;
  host: string;
  first_failed_at: number;
  last_failed_at: number;
  failures: number;
  last_status: number | null;
  last_error: string;
}

/** A failed delivery attempt, as the delivery thread records it. */
export interface DeliveryFailure {
  inbox: string;
  host: string;
  at: number;
  /** The HTTP status of the answer; null when there was none (a network error). */
  status: number | null;
  error: string;
}

/** Adds a failed attempt to its inbox's row (made on the first failure since the last success). */
export function recordDeliveryFailure(db: Db, f: DeliveryFailure): void {
  db.query(
    `INSERT INTO delivery_failures (inbox, host, first_failed_at, last_failed_at, failures, last_status, last_error)
     VALUES (@inbox, @host, @at, @at, 1, @status, @error)
     ON CONFLICT (inbox) DO UPDATE SET last_failed_at = MAX(last_failed_at, excluded.last_failed_at),
       failures = failures + 1, last_status = excluded.last_status, last_error = excluded.last_error`,
  ).run({ inbox: f.inbox, host: f.host, at: f.at, status: f.status, error: f.error });
}

/** Forgets the failures of an inbox (a delivery to it succeeded); returns whether there were any. */
export function clearDeliveryFailures(db: Db, inbox: string): boolean {
  return db.query('DELETE FROM delivery_failures WHERE inbox = ?').run(inbox).changes > 0;
}

/** The inboxes with failures recorded. */
export function failingInboxes(db: Db): string[] {
  return db.query<{ inbox: string }>('SELECT inbox FROM delivery_failures').all().map((r) => r.inbox);
}

/** Every failing inbox, the longest failing first. */
export function listDeliveryFailures(db: Db): DeliveryFailureRow[] {
  return db.query<DeliveryFailureRow>('SELECT * FROM delivery_failures ORDER BY first_failed_at, inbox').all();
}
