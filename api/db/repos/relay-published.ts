import type { Db } from '../connection.js';

/** Named queries of the relay cache publisher (0073_relay_published.sql). */

/** A queued target: an entity whose public documents are to be published again. */
export interface PublishTargetRow {
  target: string;
  payload: string | null;
  priority: number;
  version: number;
  attempts: number;
  due_at: number;
}

/** A target to mark: priority 1 for a noticed change, 0 for a sweep. */
export interface PublishMark {
  target: string;
  payload: string | null;
  priority: number;
}

/**
 * Queues targets (one transaction): a new one is due at `at`; one already queued is due again at
 * `at` with its failures forgotten, a newer version, the higher priority, and the new payload if
 * one is given.
 */
export function markPublishTargets(db: Db, marks: readonly PublishMark[], at: number): void {
  const upsert = db.query(
    `INSERT INTO relay_publish_queue (target, payload, priority, due_at) VALUES (@target, @payload, @priority, @at)
     ON CONFLICT (target) DO UPDATE SET version = version + 1, attempts = 0, last_error = NULL, due_at = excluded.due_at,
       priority = max(priority, excluded.priority), payload = coalesce(excluded.payload, payload)`,
  );
  db.transaction(() => {
    for (const m of marks) upsert.run({ target: m.target, payload: m.payload, priority: m.priority, at });
  });
}

/** Queues targets of a sweep that are not queued yet (one transaction); queued ones stay as they are. */
export function queueSweepTargets(db: Db, targets: readonly string[], at: number): void {
  const insert = db.query('INSERT OR IGNORE INTO relay_publish_queue (target, payload, priority, due_at) VALUES (?, NULL, 0, ?)');
  db.transaction(() => {
    for (const t of targets) insert.run(t, at);
  });
}

/** Targets due by `at` that are not in `busy`, changes first, then oldest due. */
export function duePublishTargets(db: Db, at: number, busy: readonly string[], limit: number): PublishTargetRow[] {
  return db
    .query<PublishTargetRow>(
      `SELECT target, payload, priority, version, attempts, due_at FROM relay_publish_queue
        WHERE due_at <= @at AND target NOT IN (SELECT value FROM json_each(@busy))
        ORDER BY priority DESC, due_at, target LIMIT @limit`,
    )
    .all({ at, busy: JSON.stringify(busy), limit });
}

/** When the next target not in `busy` is due, or null when none is queued. */
export function nextPublishDueAt(db: Db, busy: readonly string[]): number | null {
  const row = db
    .query<{ at: number | null }>('SELECT min(due_at) AS at FROM relay_publish_queue WHERE target NOT IN (SELECT value FROM json_each(?))')
    .get(JSON.stringify(busy));
  return row?.at ?? null;
}

/** Removes a published target, unless it was marked again since `version` was read. */
export function finishPublishTarget(db: Db, target: string, version: number): void {
  db.query('DELETE FROM relay_publish_queue WHERE target = ? AND version = ?').run(target, version);
}

/** Puts a target off until `dueAt`; a failure counts an attempt. Nothing when it was marked again since `version`. */
export function postponePublishTarget(db: Db, target: string, version: number, dueAt: number, error: string | null): void {
  db.query(
    `UPDATE relay_publish_queue SET due_at = @due_at, attempts = attempts + (CASE WHEN @error IS NULL THEN 0 ELSE 1 END),
       last_error = coalesce(@error, last_error) WHERE target = @target AND version = @version`,
  ).run({ target, version, due_at: dueAt, error });
}

/** A cache key the publisher sent to the relay. */
export interface PublishedRow {
  key: string;
  target: string;
  /** JSON array of alias keys. */
  aliases: string;
  status: number;
  doc_type: string | null;
  hash: string;
  refused: number;
  published_at: number;
}

/** The record of one key, if it was sent. */
export function findPublished(db: Db, key: string): PublishedRow | undefined {
  return db.query<PublishedRow>('SELECT * FROM relay_published WHERE key = ?').get(key);
}

/** The keys a target's rendering produced. */
export function publishedOfTarget(db: Db, target: string): PublishedRow[] {
  return db.query<PublishedRow>('SELECT * FROM relay_published WHERE target = ? ORDER BY key').all(target);
}

/** Records (replacing) what was sent under a key. */
export function recordPublished(db: Db, row: PublishedRow): void {
  db.query(
    `INSERT INTO relay_published (key, target, aliases, status, doc_type, hash, refused, published_at)
     VALUES (@key, @target, @aliases, @status, @doc_type, @hash, @refused, @published_at)
     ON CONFLICT (key) DO UPDATE SET target = excluded.target, aliases = excluded.aliases, status = excluded.status,
       doc_type = excluded.doc_type, hash = excluded.hash, refused = excluded.refused, published_at = excluded.published_at`,
  ).run({ ...row });
}

/** Forgets a key (it was removed from the relay). */
export function forgetPublished(db: Db, key: string): void {
  db.query('DELETE FROM relay_published WHERE key = ?').run(key);
}

/**
 * The enrolment the records are about. When it differs from `enrolment` (a first start, a new
 * relay or tenant), the records are dropped, `enrolment` is stored and true is returned: the
 * caller publishes everything again.
 */
export function switchPublisherEnrolment(db: Db, enrolment: string, at: number): boolean {
  return db.transaction(() => {
    const current = db.query<{ enrolment: string }>('SELECT enrolment FROM relay_publisher WHERE id = 1').get();
    if (current?.enrolment === enrolment) return false;
    db.query('DELETE FROM relay_published').run();
    db.query(
      'INSERT INTO relay_publisher (id, enrolment, started_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET enrolment = excluded.enrolment, started_at = excluded.started_at',
    ).run(enrolment, at);
    return true;
  });
}

/** Ids of the local accounts (suspended ones included: their documents are removed). */
export function localAccountIds(db: Db): string[] {
  return db.query<{ id: string }>('SELECT id FROM accounts WHERE domain IS NULL ORDER BY id').all().map((r) => r.id);
}

/** Ids of local public and unlisted statuses (not reblogs) after `afterId`, in id order. */
export function localPublicStatusIds(db: Db, afterId: string | null, limit: number): string[] {
  return db
    .query<{ id: string }>(
      `SELECT s.id AS id FROM statuses s JOIN accounts a ON a.id = s.account_id
        WHERE a.domain IS NULL AND s.visibility IN ('public', 'unlisted') AND s.reblog_of_id IS NULL
          AND (@after_id IS NULL OR s.id > @after_id) ORDER BY s.id LIMIT @limit`,
    )
    .all({ after_id: afterId, limit })
    .map((r) => r.id);
}
