import type { Db } from '../connection.js';

/** The instance's enrolment at its relay. */
export interface RelayEnrolmentRow {
  relay_url: string;
  host: string;
  origin: string;
  tunnel_public_key: string;
  tunnel_private_key: string;
  enrolled_at: number;
}

/** The enrolment, if the instance enrolled at a relay. */
export function getRelayEnrolment(db: Db): RelayEnrolmentRow | undefined {
  return db.query<RelayEnrolmentRow>('SELECT relay_url, host, origin, tunnel_public_key, tunnel_private_key, enrolled_at FROM relay_enrolment WHERE id = 1').get();
}

/** Stores (replacing) the enrolment. */
export function saveRelayEnrolment(db: Db, row: RelayEnrolmentRow): void {
  db.query(
    `INSERT INTO relay_enrolment (id, relay_url, host, origin, tunnel_public_key, tunnel_private_key, enrolled_at)
     VALUES (1, @relay_url, @host, @origin, @tunnel_public_key, @tunnel_private_key, @enrolled_at)
     ON CONFLICT (id) DO UPDATE SET relay_url = excluded.relay_url, host = excluded.host, origin = excluded.origin,
       tunnel_public_key = excluded.tunnel_public_key, tunnel_private_key = excluded.tunnel_private_key, enrolled_at = excluded.enrolled_at`,
  ).run({ ...row });
}

/** Whether the relay's message `seq` for `host` was applied here already. */
export function wasApplied(db: Db, host: string, seq: number): boolean {
  return db.query('SELECT 1 FROM relay_applied WHERE host = ? AND seq = ?').get(host, seq) !== undefined;
}

/** Records that the relay's message `seq` for `host` was applied. */
export function markApplied(db: Db, host: string, seq: number, at: number): void {
  db.query('INSERT OR IGNORE INTO relay_applied (host, seq, applied_at) VALUES (?, ?, ?)').run(host, seq, at);
}

/** Forgets applied messages older than `before` (the relay keeps nothing that long). */
export function pruneApplied(db: Db, before: number): number {
  return db.query('DELETE FROM relay_applied WHERE applied_at < ?').run(before).changes;
}

/** The connector's last status (JSON) and when it was written. */
export function getRelayStatus(db: Db): { status: string; updated_at: number } | undefined {
  return db.query<{ status: string; updated_at: number }>('SELECT status, updated_at FROM relay_status WHERE id = 1').get();
}

/** Writes the connector's status. */
export function saveRelayStatus(db: Db, status: string, at: number): void {
  db.query('INSERT INTO relay_status (id, status, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at').run(status, at);
}

/**
 * Makes the outbox's delayed deliveries due at `at`: after the tunnel comes back, what failed
 * while it was down goes now rather than after its back-off. Returns how many.
 */
export function makeDeliveriesDue(db: Db, at: number): number {
  return db.query("UPDATE federation_queue SET next_attempt_at = ? WHERE queue = 'outbox' AND next_attempt_at > ?").run(at, at).changes;
}
