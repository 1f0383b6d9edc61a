import type { Db } from '../connection.js';

/** The four audiences a status can have. */
export type Visibility = 'public' | 'unlisted' | 'private' | 'direct';

/** A row of `statuses` (local or remote; see 0002_statuses.sql for column meanings). */
export interface StatusRow {
  id: string;
  account_id: string;
  local: number;
  uri: string | null;
  url: string | null;
  visibility: Visibility;
  text: string;
  content: string;
  spoiler_text: string;
  sensitive: number;
  language: string | null;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  in_reply_to_uri: string | null;
  reblog_of_id: string | null;
  conversation_id: string | null;
  application_id: string | null;
  replies_count: number;
  reblogs_count: number;
  favourites_count: number;
  edited_at: number | null;
  created_at: number;
  updated_at: number;
}

/** Fields needed to insert a status; the rest take their column defaults. */
export type NewStatus = Pick<StatusRow, 'id' | 'account_id' | 'visibility' | 'created_at' | 'updated_at'> & Partial<StatusRow>;

/** Columns that `updateStatus` may change. */
export type StatusUpdate = Partial<Omit<StatusRow, 'id' | 'account_id' | 'created_at'>>;

const BY_IDS = 'SELECT * FROM statuses WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))';

/** Loads one status by id. */
export function findStatusById(db: Db, id: string): StatusRow | undefined {
  return db.query<StatusRow>('SELECT * FROM statuses WHERE id = ?').get(id);
}

/** Loads a status by its ActivityPub id (remote statuses). */
export function findStatusByUri(db: Db, uri: string): StatusRow | undefined {
  return db.query<StatusRow>('SELECT * FROM statuses WHERE uri = ?').get(uri);
}

/** Loads many statuses in one query per 500 ids; keyed by id. */
export function findStatusesByIds(db: Db, ids: readonly string[]): Map<string, StatusRow> {
  const out = new Map<string, StatusRow>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += 500) {
    for (const row of db.query<StatusRow>(BY_IDS).all(JSON.stringify(unique.slice(i, i + 500)))) out.set(row.id, row);
  }
  return out;
}

/** Inserts a status row. */
export function insertStatus(db: Db, status: NewStatus): void {
  const keys = Object.keys(status).filter((k) => status[k as keyof NewStatus] !== undefined);
  db.query(`INSERT INTO statuses (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`).run(
    Object.fromEntries(keys.map((k) => [k, status[k as keyof NewStatus] as string | number | null])),
  );
}

/** Updates the given columns of one status. */
export function updateStatus(db: Db, id: string, changes: StatusUpdate): void {
  const keys = Object.keys(changes).filter((k) => changes[k as keyof StatusUpdate] !== undefined);
  if (keys.length === 0) return;
  db.query(`UPDATE statuses SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({
    ...Object.fromEntries(keys.map((k) => [k, changes[k as keyof StatusUpdate] as string | number | null])),
    id,
  });
}

/** Deletes one status row (mentions, tags links, polls, edits, reblogs cascade). */
export function deleteStatusRow(db: Db, id: string): void {
  db.query('DELETE FROM statuses WHERE id = ?').run(id);
}

/** Adds `delta` to one of a status's counters, never below zero. */
export function bumpStatusCounter(db: Db, id: string, counter: 'replies_count' | 'reblogs_count' | 'favourites_count', delta: number): void {
  db.query(`UPDATE statuses SET ${counter} = max(0, ${counter} + @delta) WHERE id = @id`).run({ id, delta });
}

/** The reblogs of a status (rows whose reblog_of_id is it). */
export function findReblogsOf(db: Db, statusId: string): StatusRow[] {
  return db.query<StatusRow>('SELECT * FROM statuses WHERE reblog_of_id = ?').all(statusId);
}

/** The viewer's reblog of a status, if any. */
export function findReblogBy(db: Db, accountId: string, statusId: string): StatusRow | undefined {
  return db.query<StatusRow>('SELECT * FROM statuses WHERE account_id = ? AND reblog_of_id = ?').get(accountId, statusId);
}

/** Creates a conversation (thread) row and returns its id. */
export function insertConversation(db: Db, id: string, createdAt: number, uri: string | null = null): string {
  db.query('INSERT INTO conversations (id, uri, created_at) VALUES (@id, @uri, @created_at)').run({ id, uri, created_at: createdAt });
  return id;
}

/** Adjusts an account's statuses_count and, when posting, its last_status_at. */
export function bumpAccountStatuses(db: Db, accountId: string, delta: number, at: number | null): void {
  if (at !== null) {
    db.query('UPDATE accounts SET statuses_count = max(0, statuses_count + @delta), last_status_at = @at WHERE id = @id').run({ id: accountId, delta, at });
  } else {
    db.query('UPDATE accounts SET statuses_count = max(0, statuses_count + @delta) WHERE id = @id').run({ id: accountId, delta });
  }
}

/**
 * The ancestors of a status, nearest first, following in_reply_to_id up to `limit` steps.
 * Rows only; visibility is applied by the caller.
 */
export function findAncestors(db: Db, statusId: string, limit: number): StatusRow[] {
  return db
    .query<StatusRow>(
      `WITH RECURSIVE up(id, depth) AS (
         SELECT in_reply_to_id, 1 FROM statuses WHERE id = @status_id AND in_reply_to_id IS NOT NULL
         UNION ALL
         SELECT s.in_reply_to_id, up.depth + 1 FROM statuses s JOIN up ON s.id = up.id
         WHERE s.in_reply_to_id IS NOT NULL AND up.depth < @limit
       )
       SELECT statuses.* FROM up JOIN statuses ON statuses.id = up.id ORDER BY up.depth`,
    )
    .all({ status_id: statusId, limit });
}

/**
 * The descendants of a status (replies, replies to replies…), at most `limit` rows, with each
 * row's parent so that the caller can order them depth-first.
 */
export function findDescendants(db: Db, statusId: string, limit: number): StatusRow[] {
  return db
    .query<StatusRow>(
      `WITH RECURSIVE down(id) AS (
         SELECT id FROM statuses WHERE in_reply_to_id = @status_id
         UNION
         SELECT s.id FROM statuses s JOIN down ON s.in_reply_to_id = down.id
         LIMIT @limit
       )
       SELECT statuses.* FROM down JOIN statuses ON statuses.id = down.id ORDER BY statuses.id`,
    )
    .all({ status_id: statusId, limit });
}

/** Records an Idempotency-Key use. */
export function insertIdempotencyKey(
  db: Db,
  row: { account_id: string; key: string; status_id: string | null; scheduled_status_id: string | null; created_at: number },
): void {
  db.query(
    `INSERT INTO idempotency_keys (account_id, key, status_id, scheduled_status_id, created_at)
     VALUES (@account_id, @key, @status_id, @scheduled_status_id, @created_at)
     ON CONFLICT (account_id, key) DO UPDATE SET status_id = excluded.status_id,
       scheduled_status_id = excluded.scheduled_status_id, created_at = excluded.created_at`,
  ).run(row);
}

/** The status or scheduled status first created with an Idempotency-Key since `since`. */
export function findIdempotencyKey(
  db: Db,
  accountId: string,
  key: string,
  since: number,
): { status_id: string | null; scheduled_status_id: string | null } | undefined {
  return db
    .query<{ status_id: string | null; scheduled_status_id: string | null }>(
      'SELECT status_id, scheduled_status_id FROM idempotency_keys WHERE account_id = @account_id AND key = @key AND created_at >= @since',
    )
    .get({ account_id: accountId, key, since });
}

/** Viewer flags over a batch of statuses: which of them the viewer favourited, bookmarked, pinned or reblogged. */
export function findViewerFlags(
  db: Db,
  viewerId: string,
  statusIds: readonly string[],
): { favourited: Set<string>; bookmarked: Set<string>; pinned: Set<string>; reblogged: Set<string> } {
  const ids = JSON.stringify([...new Set(statusIds)]);
  const inIds = 'IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))';
  const set = (sql: string) => new Set(db.query<{ status_id: string }>(sql).all({ viewer_id: viewerId, ids }).map((r) => r.status_id));
  return {
    favourited: set(`SELECT status_id FROM favourites WHERE account_id = @viewer_id AND status_id ${inIds}`),
    bookmarked: set(`SELECT status_id FROM bookmarks WHERE account_id = @viewer_id AND status_id ${inIds}`),
    pinned: set(`SELECT status_id FROM status_pins WHERE account_id = @viewer_id AND status_id ${inIds}`),
    reblogged: set(`SELECT reblog_of_id AS status_id FROM statuses WHERE account_id = @viewer_id AND reblog_of_id ${inIds}`),
  };
}

/** Of the given conversations, those the viewer muted. */
export function findMutedConversations(db: Db, viewerId: string, conversationIds: readonly string[]): Set<string> {
  if (conversationIds.length === 0) return new Set();
  return new Set(
    db
      .query<{ conversation_id: string }>(
        `SELECT conversation_id FROM conversation_mutes WHERE account_id = @viewer_id
         AND conversation_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))`,
      )
      .all({ viewer_id: viewerId, ids: JSON.stringify([...new Set(conversationIds)]) })
      .map((r) => r.conversation_id),
  );
}

/** Name and website of applications, keyed by id. */
export function findApplicationsByIds(db: Db, ids: readonly string[]): Map<string, { name: string; website: string | null }> {
  const out = new Map<string, { name: string; website: string | null }>();
  if (ids.length === 0) return out;
  const rows = db
    .query<{ id: string; name: string; website: string | null }>(
      'SELECT id, name, website FROM oauth_applications WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))',
    )
    .all(JSON.stringify([...new Set(ids)]));
  // An empty website is no website: clients expect null, never ''.
  for (const r of rows) out.set(r.id, { name: r.name, website: r.website || null });
  return out;
}
