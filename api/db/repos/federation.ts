import type { Db } from '../connection.js';
import type { StatusRow } from './statuses.js';

/** One row of Fedify's key-value store. */
export interface KvRow {
  key: string;
  value: string;
  expires_at: number | null;
}

/** Reads a live (unexpired) key-value entry. */
export function kvGet(db: Db, key: string, at: number): KvRow | undefined {
  return db.query<KvRow>('SELECT key, value, expires_at FROM federation_kv WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)').get(key, at);
}

/** Writes a key-value entry. */
export function kvSet(db: Db, key: string, value: string, expiresAt: number | null): void {
  db.query(
    'INSERT INTO federation_kv (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
  ).run(key, value, expiresAt);
}

/** Removes a key-value entry. */
export function kvDelete(db: Db, key: string): void {
  db.query('DELETE FROM federation_kv WHERE key = ?').run(key);
}

/** Live entries whose key text starts with `prefix` (or equals `exact`). */
export function kvList(db: Db, exact: string, prefix: string, at: number): KvRow[] {
  return db
    .query<KvRow>(
      'SELECT key, value, expires_at FROM federation_kv WHERE (key = @exact OR substr(key, 1, length(@prefix)) = @prefix) AND (expires_at IS NULL OR expires_at > @at) ORDER BY key',
    )
    .all({ exact, prefix, at });
}

/** Drops expired entries. */
export function kvPurgeExpired(db: Db, at: number): number {
  return db.query('DELETE FROM federation_kv WHERE expires_at IS NOT NULL AND expires_at <= ?').run(at).changes;
}

/** The queues Fedify uses. */
export type QueueName = 'inbox' | 'outbox' | 'fanout';

/** One queued message. */
export interface QueueRow {
  id: string;
  queue: QueueName;
  message: string;
  ordering_key: string | null;
  attempts: number;
  next_attempt_at: number;
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
}

/** Adds a message to a queue. */
export function enqueueMessage(db: Db, row: Pick<QueueRow, 'id' | 'queue' | 'message' | 'ordering_key' | 'next_attempt_at' | 'created_at'>): void {
  db.query(
    'INSERT INTO federation_queue (id, queue, message, ordering_key, next_attempt_at, created_at) VALUES (@id, @queue, @message, @ordering_key, @next_attempt_at, @created_at)',
  ).run(row);
}

/**
 * Claims up to `limit` due messages of a queue until `lockedUntil`: not locked (or their lease
 * ran out), and the oldest of their ordering key, so same-key messages run one at a time in order.
 */
export function claimMessages(db: Db, queue: QueueName, at: number, lockedUntil: number, limit: number): QueueRow[] {
  return db.transaction(() => {
    const ids = db
      .query<{ id: string }>(
        `SELECT q.id FROM federation_queue q
          WHERE q.queue = @queue AND q.next_attempt_at <= @at AND (q.locked_until IS NULL OR q.locked_until <= @at)
            AND (q.ordering_key IS NULL OR NOT EXISTS (
              SELECT 1 FROM federation_queue e WHERE e.ordering_key = q.ordering_key AND e.id < q.id))
          ORDER BY q.next_attempt_at, q.id LIMIT @limit`,
      )
      .all({ queue, at, limit })
      .map((r) => r.id);
    const rows: QueueRow[] = [];
    for (const id of ids) {
      const row = db
        .query<QueueRow>('UPDATE federation_queue SET locked_until = @locked_until, attempts = attempts + 1 WHERE id = @id RETURNING *')
        .get({ id, locked_until: lockedUntil });
      if (row) rows.push(row);
    }
    return rows;
  });
}

/** Removes a message that was handled. */
export function deleteMessage(db: Db, id: string): void {
  db.query('DELETE FROM federation_queue WHERE id = @id').run({ id });
}

/** Puts a failed message back for a later attempt. */
export function releaseMessage(db: Db, id: string, nextAttemptAt: number, error: string): void {
  db.query('UPDATE federation_queue SET locked_until = NULL, next_attempt_at = @next, last_error = @error WHERE id = @id').run({ id, next: nextAttemptAt, error });
}

/** Counts of a queue's messages: all of them and those due now. */
export function queueDepth(db: Db, queue: QueueName, at: number): { queued: number; ready: number } {
  const row = db
    .query<{ queued: number; ready: number | null }>(
      'SELECT count(*) AS queued, sum(next_attempt_at <= @at) AS ready FROM federation_queue WHERE queue = @queue',
    )
    .get({ queue, at });
  return { queued: row?.queued ?? 0, ready: row?.ready ?? 0 };
}

/** A remote attachment of a remote status (kept by URL, not downloaded). */
export interface RemoteMediaRow {
  id: string;
  account_id: string;
  status_id: string;
  position: number;
  type: 'image' | 'gifv' | 'video' | 'audio' | 'unknown';
  remote_url: string;
  description: string | null;
  blurhash: string | null;
  focus_x: number | null;
  focus_y: number | null;
  created_at: number;
}

/**
 * Inserts a remote attachment. An image is its own preview; a video or audio file is not one, so
 * those have no remote preview (a cached copy gets a local one).
 */
export function insertRemoteMedia(db: Db, row: RemoteMediaRow): void {
  db.query(
    `INSERT INTO media_attachments (id, account_id, status_id, position, type, remote_url, preview_remote_url, description, blurhash, focus_x, focus_y, created_at, updated_at)
     VALUES (@id, @account_id, @status_id, @position, @type, @remote_url, CASE WHEN @type = 'image' THEN @remote_url END, @description, @blurhash, @focus_x, @focus_y, @created_at, @created_at)`,
  ).run({ ...row });
}

/** Records the ActivityPub id of a follow (the remote Follow activity, to answer it with Accept). */
export function setFollowUri(db: Db, table: 'follows' | 'follow_requests', id: string, uri: string): void {
  db.query(`UPDATE ${table} SET uri = @uri WHERE id = @id`).run({ id, uri });
}

/**
 * One page of the remote followers of an account with their inboxes, in follower id order, after
 * the follower `afterAccountId` (null for the first page): a delivery to thousands of followers
 * reads them a page at a time.
 */
export function remoteFollowerInboxesPage(
  db: Db,
  accountId: string,
  afterAccountId: string | null,
  limit: number,
): { account_id: string; uri: string; inbox: string; shared_inbox: string | null }[] {
  return db
    .query<{ account_id: string; uri: string; inbox: string; shared_inbox: string | null }>(
      `SELECT f.account_id AS account_id, a.uri AS uri, a.inbox_url AS inbox, a.shared_inbox_url AS shared_inbox FROM follows f JOIN accounts a ON a.id = f.account_id
        WHERE f.target_account_id = @account_id AND (@after_id IS NULL OR f.account_id > @after_id) AND a.domain IS NOT NULL AND a.inbox_url IS NOT NULL
        ORDER BY f.account_id LIMIT @limit`,
    )
    .all({ account_id: accountId, after_id: afterAccountId, limit });
}

/** One page of an account's followers or followees as actor URIs (null for local ones), newest first. */
export function followPageUris(db: Db, accountId: string, direction: 'followers' | 'following', beforeId: string | null, limit: number): { id: string; uri: string | null; username: string }[] {
  const join = direction === 'followers' ? 'a.id = f.account_id WHERE f.target_account_id = @account_id' : 'a.id = f.target_account_id WHERE f.account_id = @account_id';
  return db
    .query<{ id: string; uri: string | null; username: string }>(
      `SELECT f.id AS id, a.uri AS uri, a.username AS username FROM follows f JOIN accounts a ON ${join}
        AND (@before_id IS NULL OR f.id < @before_id) ORDER BY f.id DESC LIMIT @limit`,
    )
    .all({ account_id: accountId, before_id: beforeId, limit });
}

/** One page of an account's public statuses (not replies to others, not reblogs), newest first. */
export function publicStatusPage(db: Db, accountId: string, beforeId: string | null, limit: number): StatusRow[] {
  return db
    .query<StatusRow>(
      `SELECT * FROM statuses WHERE account_id = @account_id AND visibility IN ('public', 'unlisted') AND reblog_of_id IS NULL
        AND (@before_id IS NULL OR id < @before_id) ORDER BY id DESC LIMIT @limit`,
    )
    .all({ account_id: accountId, before_id: beforeId, limit });
}

/** Count of an account's public and unlisted statuses. */
export function countPublicStatuses(db: Db, accountId: string): number {
  return db.query<{ n: number }>("SELECT count(*) AS n FROM statuses WHERE account_id = @account_id AND visibility IN ('public', 'unlisted') AND reblog_of_id IS NULL").get({ account_id: accountId })?.n ?? 0;
}

/** An account's pinned public statuses, most recently pinned first. */
export function pinnedPublicStatuses(db: Db, accountId: string): StatusRow[] {
  return db
    .query<StatusRow>(
      `SELECT s.* FROM status_pins p JOIN statuses s ON s.id = p.status_id
        WHERE p.account_id = @account_id AND s.visibility IN ('public', 'unlisted') ORDER BY p.id DESC LIMIT 40`,
    )
    .all({ account_id: accountId });
}

/** Ids of the local accounts following an account or asking to (a Move carries them over). */
export function localFollowerIds(db: Db, accountId: string): string[] {
  return db
    .query<{ account_id: string }>(
      `SELECT f.account_id FROM follows f JOIN accounts a ON a.id = f.account_id WHERE f.target_account_id = @account_id AND a.domain IS NULL
       UNION SELECT r.account_id FROM follow_requests r JOIN accounts a ON a.id = r.account_id WHERE r.target_account_id = @account_id AND a.domain IS NULL`,
    )
    .all({ account_id: accountId })
    .map((r) => r.account_id);
}

/** Whether a local account blocks a whole domain (user-level `account_domain_blocks`). */
export function accountBlocksDomain(db: Db, accountId: string, domain: string): boolean {
  return db.query('SELECT 1 FROM account_domain_blocks WHERE account_id = @account_id AND domain = @domain').get({ account_id: accountId, domain }) !== undefined;
}

/** Stores a remote poll's counts as its server last reported them (Update of a Question). */
export function setRemotePollCounts(db: Db, statusId: string, tallies: readonly number[], votersCount: number | null, expiresAt: number | null, at: number): void {
  db.query(
    `UPDATE polls SET tallies = @tallies, votes_count = @votes_count, voters_count = @voters_count,
       expires_at = COALESCE(@expires_at, expires_at), last_fetched_at = @at, updated_at = @at WHERE status_id = @status_id`,
  ).run({ status_id: statusId, tallies: JSON.stringify(tallies), votes_count: tallies.reduce((a, b) => a + b, 0), voters_count: votersCount, expires_at: expiresAt, at });
}

/** Blurhash and focal point of local media by file key (outgoing attachments carry them). */
export function mediaExtrasByFileKeys(db: Db, keys: readonly string[]): Map<string, { blurhash: string | null; focus_x: number | null; focus_y: number | null }> {
  const out = new Map<string, { blurhash: string | null; focus_x: number | null; focus_y: number | null }>();
  for (const key of new Set(keys)) {
    const row = db.query<{ blurhash: string | null; focus_x: number | null; focus_y: number | null }>('SELECT blurhash, focus_x, focus_y FROM media_attachments WHERE file_key = ?').get(key);
    if (row) out.set(key, row);
  }
  return out;
}

/** Replies stored before their parent was known: they name its uri but have no in_reply_to_id. */
export function orphanRepliesTo(db: Db, parentUri: string): StatusRow[] {
  return db.query<StatusRow>('SELECT * FROM statuses WHERE in_reply_to_uri = ? AND in_reply_to_id IS NULL').all(parentUri);
}

/**
 * When the next message of a queue may be claimed (its next attempt, or the end of the lease of
 * one still locked), or null when the queue is empty.
 */
export function nextQueueClaimAt(db: Db, queue: QueueName): number | null {
  const row = db
    .query<{ at: number | null }>('SELECT min(max(next_attempt_at, coalesce(locked_until, 0))) AS at FROM federation_queue WHERE queue = ?')
    .get(queue);
  return row?.at ?? null;
}

/** Whether any remote account is known: an instance that has met one will deliver to it. */
export function knowsRemoteAccounts(db: Db): boolean {
  return db.query<{ one: number }>('SELECT 1 AS one FROM accounts WHERE domain IS NOT NULL LIMIT 1').get() !== undefined;
}
