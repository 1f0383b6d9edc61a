import type { Db } from '../connection.js';

/**
 * Remote media (attachments of remote statuses, avatars and headers of remote accounts, remote
 * custom emojis): what the background copy job has to do, what it did, and where the media proxy
 * finds the remote files.
 */

/** What kind of record a remote file belongs to. */
export type RemoteMediaKind = 'attachment' | 'avatar' | 'header' | 'emoji';

/** A row of `remote_media_copies`. */
export interface RemoteMediaCopyRow {
  kind: RemoteMediaKind;
  record_id: string;
  source_url: string;
  state: 'pending' | 'done' | 'failed';
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  /** JSON array of storage keys. */
  keys: string;
  updated_at: number;
}

/** A record that needs its remote file copied (or its outdated copy removed). */
export interface RemoteMediaTask {
  kind: RemoteMediaKind;
  id: string;
}

/** The copy state of one record, if any. */
export function findRemoteCopy(db: Db, kind: RemoteMediaKind, recordId: string): RemoteMediaCopyRow | undefined {
  return db.query<RemoteMediaCopyRow>('SELECT * FROM remote_media_copies WHERE kind = @kind AND record_id = @record_id').get({ kind, record_id: recordId });
}

/** Records the copy state of a record (replacing what was there). */
export function saveRemoteCopy(db: Db, row: RemoteMediaCopyRow): void {
  db.query(
    `INSERT INTO remote_media_copies (kind, record_id, source_url, state, attempts, next_attempt_at, last_error, keys, updated_at)
     VALUES (@kind, @record_id, @source_url, @state, @attempts, @next_attempt_at, @last_error, @keys, @updated_at)
     ON CONFLICT (kind, record_id) DO UPDATE SET source_url = excluded.source_url, state = excluded.state, attempts = excluded.attempts,
       next_attempt_at = excluded.next_attempt_at, last_error = excluded.last_error, keys = excluded.keys, updated_at = excluded.updated_at`,
  ).run({ ...row });
}

/** Forgets the copy state of a record. */
export function deleteRemoteCopy(db: Db, kind: RemoteMediaKind, recordId: string): void {
  db.query('DELETE FROM remote_media_copies WHERE kind = @kind AND record_id = @record_id').run({ kind, record_id: recordId });
}

// A copy is needed when there is no state yet, when the remote URL changed since, or when a
// pending download's next attempt is due.
const NEEDED = `(c.record_id IS NULL OR c.source_url IS NOT %URL% OR (c.state = 'pending' AND c.next_attempt_at <= @at))`;

/**
 * Records whose remote file has no local copy yet and is due for a download, newest first: remote
 * attachments of existing statuses, avatars and headers of remote accounts that are not suspended
 * (and those whose remote picture went away while a copy remains), remote emojis.
 */
export function findRemoteMediaTasks(db: Db, at: number, limit: number): RemoteMediaTask[] {
  const attachments = db
    .query<{ id: string }>(
      `SELECT m.id AS id FROM media_attachments m
       LEFT JOIN remote_media_copies c ON c.kind = 'attachment' AND c.record_id = m.id
       WHERE m.remote_url IS NOT NULL AND m.file_key IS NULL AND m.status_id IS NOT NULL AND ${NEEDED.replace('%URL%', 'm.remote_url')}
       ORDER BY m.id DESC LIMIT @limit`,
    )
    .all({ at, limit });
  const images: RemoteMediaTask[] = [];
  for (const kind of ['avatar', 'header'] as const) {
    const col = `a.${kind}_remote_url`;
    const rows = db
      .query<{ id: string }>(
        `SELECT a.id AS id FROM accounts a
         LEFT JOIN remote_media_copies c ON c.kind = '${kind}' AND c.record_id = a.id
         WHERE a.domain IS NOT NULL AND a.suspended_at IS NULL
           AND ((${col} IS NOT NULL AND ${NEEDED.replace('%URL%', col)}) OR (${col} IS NULL AND c.record_id IS NOT NULL))
         ORDER BY a.id DESC LIMIT @limit`,
      )
      .all({ at, limit });
    images.push(...rows.map((r) => ({ kind, id: r.id })));
  }
  const emojis = db
    .query<{ id: string }>(
      `SELECT e.id AS id FROM custom_emojis e
       LEFT JOIN remote_media_copies c ON c.kind = 'emoji' AND c.record_id = e.id
       WHERE e.domain IS NOT NULL AND e.image_remote_url IS NOT NULL AND ${NEEDED.replace('%URL%', 'e.image_remote_url')}
       ORDER BY e.id DESC LIMIT @limit`,
    )
    .all({ at, limit });
  return [...attachments.map((r) => ({ kind: 'attachment' as const, id: r.id })), ...images, ...emojis.map((r) => ({ kind: 'emoji' as const, id: r.id }))];
}

/** The remote attachments of a status that have no local copy. */
export function findUncopiedMediaOfStatus(db: Db, statusId: string): string[] {
  return db
    .query<{ id: string }>('SELECT id FROM media_attachments WHERE status_id = @status_id AND remote_url IS NOT NULL AND file_key IS NULL')
    .all({ status_id: statusId })
    .map((r) => r.id);
}

/**
 * Copies whose record is gone: the attachment was deleted or its status was (remote media are
 * detached when their status is deleted), the account or the emoji was deleted.
 */
export function findOrphanedRemoteCopies(db: Db, limit: number): RemoteMediaCopyRow[] {
  return db
    .query<RemoteMediaCopyRow>(
      `SELECT c.* FROM remote_media_copies c WHERE
         (c.kind = 'attachment' AND NOT EXISTS (SELECT 1 FROM media_attachments m WHERE m.id = c.record_id AND m.status_id IS NOT NULL))
         OR (c.kind IN ('avatar', 'header') AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = c.record_id))
         OR (c.kind = 'emoji' AND NOT EXISTS (SELECT 1 FROM custom_emojis e WHERE e.id = c.record_id))
       LIMIT @limit`,
    )
    .all({ limit });
}

/**
 * Remote attachments left without a status (their status was deleted), that no edit history
 * shows, with their stored keys.
 */
export function findDetachedRemoteMedia(db: Db, limit: number): { id: string; file_key: string | null; preview_key: string | null }[] {
  return db
    .query<{ id: string; file_key: string | null; preview_key: string | null }>(
      `SELECT m.id AS id, m.file_key AS file_key, m.preview_key AS preview_key FROM media_attachments m
       WHERE m.status_id IS NULL AND m.remote_url IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM status_edits e, json_each(e.media) j
                         WHERE e.account_id = m.account_id AND CAST(json_extract(j.value, '$.id') AS INTEGER) = m.id)
       LIMIT @limit`,
    )
    .all({ limit });
}

/** Deletes a detached remote attachment row. */
export function deleteDetachedRemoteMedia(db: Db, id: string): void {
  db.query('DELETE FROM media_attachments WHERE id = @id AND status_id IS NULL AND remote_url IS NOT NULL').run({ id });
}

/** Sets (or clears) the stored files of a custom emoji. */
export function setEmojiFiles(db: Db, id: string, imageFile: string | null, staticFile: string | null, at: number): void {
  db.query('UPDATE custom_emojis SET image_file = @image_file, static_file = @static_file, updated_at = @at WHERE id = @id').run({
    id,
    image_file: imageFile,
    static_file: staticFile,
    at,
  });
}

/** Where the media proxy finds a remote attachment: its remote file and remote preview. */
export function findRemoteAttachmentSource(db: Db, id: string): { remote_url: string; preview_remote_url: string | null; type: string } | undefined {
  return db
    .query<{ remote_url: string; preview_remote_url: string | null; type: string }>(
      'SELECT remote_url, preview_remote_url, type FROM media_attachments WHERE id = @id AND remote_url IS NOT NULL AND status_id IS NOT NULL',
    )
    .get({ id });
}

/** Where the media proxy finds a remote account's avatar or header (not for suspended accounts). */
export function findRemoteAccountImageSource(db: Db, id: string, kind: 'avatar' | 'header'): string | null {
  const row = db
    .query<{ url: string | null }>(`SELECT ${kind}_remote_url AS url FROM accounts WHERE id = @id AND domain IS NOT NULL AND suspended_at IS NULL`)
    .get({ id });
  return row?.url ?? null;
}

/** Where the media proxy finds a remote custom emoji's image. */
export function findRemoteEmojiSource(db: Db, id: string): string | null {
  const row = db.query<{ url: string | null }>('SELECT image_remote_url AS url FROM custom_emojis WHERE id = @id AND domain IS NOT NULL').get({ id });
  return row?.url ?? null;
}
