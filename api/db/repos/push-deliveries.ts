import type { Db } from '../connection.js';

/** A row of `push_deliveries`: one push request waiting to be sent (or sent again). */
export interface PushDeliveryRow {
  id: string;
  subscription_id: string;
  notification_id: string;
  /** Attempts made so far. */
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
}

/** Queues deliveries; a pair already queued is left as it is. */
export function insertPushDeliveries(db: Db, rows: readonly Omit<PushDeliveryRow, 'attempts' | 'last_error'>[]): void {
  const insert = db.query(
    `INSERT INTO push_deliveries (id, subscription_id, notification_id, attempts, next_attempt_at, last_error, created_at)
     VALUES (@id, @subscription_id, @notification_id, 0, @next_attempt_at, NULL, @created_at)
     ON CONFLICT (subscription_id, notification_id) DO NOTHING`,
  );
  for (const row of rows) insert.run({ ...row });
}

/** Deliveries due at `at`, oldest due first. */
export function duePushDeliveries(db: Db, at: number, limit: number): PushDeliveryRow[] {
  return db.query<PushDeliveryRow>('SELECT * FROM push_deliveries WHERE next_attempt_at <= @at ORDER BY next_attempt_at, id LIMIT @limit').all({ at, limit });
}

/** Moves the deliveries' due time to `until` (a lease while they are in flight). */
export function leasePushDeliveries(db: Db, ids: readonly string[], until: number): void {
  if (ids.length === 0) return;
  db.query('UPDATE push_deliveries SET next_attempt_at = @until WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))').run({
    until,
    ids: JSON.stringify(ids),
  });
}

/** Removes a delivery (sent, or given up). */
export function deletePushDelivery(db: Db, id: string): void {
  db.query('DELETE FROM push_deliveries WHERE id = @id').run({ id });
}

/** Records a failed attempt and when to try again. */
export function reschedulePushDelivery(db: Db, id: string, attempts: number, nextAttemptAt: number, error: string): void {
  db.query('UPDATE push_deliveries SET attempts = @attempts, next_attempt_at = @next, last_error = @error WHERE id = @id').run({
    id,
    attempts,
    next: nextAttemptAt,
    error,
  });
}
