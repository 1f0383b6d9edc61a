import type { Db } from '../connection.js';

/** A row of `webhooks`. */
export interface WebhookRow {
  id: string;
  url: string;
  /** JSON array of event names. */
  events: string;
  secret: string;
  enabled: number;
  template: string | null;
  created_at: number;
  updated_at: number;
}

/** A row of `webhook_deliveries`. */
export interface WebhookDeliveryRow {
  id: string;
  webhook_id: string;
  event: string;
  object_id: string;
  body: string | null;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
}

/** Every webhook, oldest first. */
export function allWebhooks(db: Db): WebhookRow[] {
  return db.query<WebhookRow>('SELECT * FROM webhooks ORDER BY id').all();
}

/** A webhook by id. */
export function findWebhook(db: Db, id: string): WebhookRow | undefined {
  return db.query<WebhookRow>('SELECT * FROM webhooks WHERE id = ?').get(id);
}

/** Webhooks by id (unknown ids left out). */
export function findWebhooksByIds(db: Db, ids: readonly string[]): Map<string, WebhookRow> {
  if (ids.length === 0) return new Map();
  const rows = db.query<WebhookRow>('SELECT * FROM webhooks WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))').all(JSON.stringify([...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r]));
}

/** The ids of the enabled webhooks that subscribe to an event. */
export function enabledWebhookIdsFor(db: Db, event: string): string[] {
  return db
    .query<{ id: string }>('SELECT w.id FROM webhooks w WHERE w.enabled = 1 AND EXISTS (SELECT 1 FROM json_each(w.events) e WHERE e.value = ?) ORDER BY w.id')
    .all(event)
    .map((r) => r.id);
}

/** Inserts a webhook. */
export function insertWebhook(db: Db, row: WebhookRow): void {
  db.query(
    `INSERT INTO webhooks (id, url, events, secret, enabled, template, created_at, updated_at)
     VALUES (@id, @url, @events, @secret, @enabled, @template, @created_at, @updated_at)`,
  ).run({ ...row });
}

/** Writes a webhook's fields back. */
export function updateWebhook(db: Db, row: WebhookRow): void {
  db.query(
    `UPDATE webhooks SET url = @url, events = @events, secret = @secret, enabled = @enabled, template = @template, updated_at = @updated_at
     WHERE id = @id`,
  ).run({ ...row });
}

/** Deletes a webhook (its queued deliveries go with it); false when there was none. */
export function deleteWebhook(db: Db, id: string): boolean {
  return db.query('DELETE FROM webhooks WHERE id = ?').run(id).changes > 0;
}

/** Queues deliveries. */
export function insertWebhookDeliveries(db: Db, rows: readonly Omit<WebhookDeliveryRow, 'body' | 'attempts' | 'last_error'>[]): void {
  const insert = db.query(
    `INSERT INTO webhook_deliveries (id, webhook_id, event, object_id, next_attempt_at, created_at)
     VALUES (@id, @webhook_id, @event, @object_id, @next_attempt_at, @created_at)`,
  );
  for (const row of rows) insert.run({ ...row });
}

/** Deliveries due at `at`, oldest first, at most `limit`. */
export function dueWebhookDeliveries(db: Db, at: number, limit: number): WebhookDeliveryRow[] {
  return db.query<WebhookDeliveryRow>('SELECT * FROM webhook_deliveries WHERE next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?').all(at, limit);
}

/** Moves deliveries' next attempt to `until` (a lease while they are in flight), keeping their bodies. */
export function leaseWebhookDeliveries(db: Db, ids: readonly string[], until: number): void {
  db.query('UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))').run(until, JSON.stringify(ids));
}

/** Keeps the body a delivery was first sent with. */
export function setWebhookDeliveryBody(db: Db, id: string, body: string): void {
  db.query('UPDATE webhook_deliveries SET body = ? WHERE id = ?').run(body, id);
}

/** Removes a delivery (answered, or given up). */
export function deleteWebhookDelivery(db: Db, id: string): void {
  db.query('DELETE FROM webhook_deliveries WHERE id = ?').run(id);
}

/** Sets a failed delivery's next attempt. */
export function rescheduleWebhookDelivery(db: Db, id: string, attempts: number, at: number, error: string): void {
  db.query('UPDATE webhook_deliveries SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?').run(attempts, at, error, id);
}
