import type { Db } from '../connection.js';
import type { MediaRow } from './media.js';

/** Named queries for uploads: inserting and changing media rows, background jobs, clean-up. */

/** Inserts a media row. */
export function insertMediaRow(db: Db, row: MediaRow): void {
  db.query(
    `INSERT INTO media_attachments (id, account_id, status_id, position, type, file_key, preview_key, file_content_type, file_size,
       remote_url, preview_remote_url, description, focus_x, focus_y, meta, blurhash, processing, created_at, updated_at)
     VALUES (@id, @account_id, @status_id, @position, @type, @file_key, @preview_key, @file_content_type, @file_size,
       @remote_url, @preview_remote_url, @description, @focus_x, @focus_y, @meta, @blurhash, @processing, @created_at, @updated_at)`,
  ).run({ ...row });
}

/** The columns an update may change. */
export type MediaChange = Partial<
  Pick<MediaRow, 'type' | 'file_key' | 'preview_key' | 'file_content_type' | 'file_size' | 'description' | 'focus_x' | 'focus_y' | 'meta' | 'blurhash' | 'processing' | 'updated_at'>
>;

/** Updates the given columns of a media row. */
export function updateMediaRow(db: Db, id: string, change: MediaChange): void {
  const keys = Object.keys(change).filter((k) => change[k as keyof MediaChange] !== undefined);
  if (keys.length === 0) return;
  db.query(`UPDATE media_attachments SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({
    ...Object.fromEntries(keys.map((k) => [k, change[k as keyof MediaChange] as string | number | null])),
    id,
  });
}

/** One media row by id. */
export function findMediaRow(db: Db, id: string): MediaRow | undefined {
  return db.query<MediaRow>('SELECT * FROM media_attachments WHERE id = @id').get({ id });
}

/** Deletes a media row (its job goes with it). */
export function deleteMediaRow(db: Db, id: string): void {
  db.query('DELETE FROM media_attachments WHERE id = @id').run({ id });
}

/** A row of `media_jobs`. */
export interface MediaJobRow {
  media_id: string;
  source_path: string;
  attempts: number;
  created_at: number;
}

/** Records an upload waiting for background processing. */
export function insertMediaJob(db: Db, job: MediaJobRow): void {
  db.query('INSERT INTO media_jobs (media_id, source_path, attempts, created_at) VALUES (@media_id, @source_path, @attempts, @created_at)').run({ ...job });
}

/** The job of a media row, if it still waits. */
export function findMediaJob(db: Db, mediaId: string): MediaJobRow | undefined {
  return db.query<MediaJobRow>('SELECT * FROM media_jobs WHERE media_id = @media_id').get({ media_id: mediaId });
}

/** Every waiting job, oldest first. */
export function listMediaJobs(db: Db, limit: number): MediaJobRow[] {
  return db.query<MediaJobRow>('SELECT * FROM media_jobs ORDER BY created_at, media_id LIMIT ?').all(limit);
}

/** Counts an attempt at a job. */
export function bumpMediaJobAttempts(db: Db, mediaId: string): void {
  db.query('UPDATE media_jobs SET attempts = attempts + 1 WHERE media_id = @media_id').run({ media_id: mediaId });
}

/** Removes a job (done, failed, or its media deleted). */
export function deleteMediaJob(db: Db, mediaId: string): void {
  db.query('DELETE FROM media_jobs WHERE media_id = @media_id').run({ media_id: mediaId });
}

/**
 * Local media created before `before` that no status uses: not attached, not named by a
 * scheduled status waiting to be published, and not shown by an edit's history.
 */
export function findStaleUnattachedMedia(db: Db, before: number, limit: number): MediaRow[] {
  return db
    .query<MediaRow>(
      `SELECT m.* FROM media_attachments m
       WHERE m.status_id IS NULL AND m.created_at < @before AND m.remote_url IS NULL
         AND NOT EXISTS (SELECT 1 FROM scheduled_statuses s, json_each(s.params, '$.media_ids') j
                         WHERE s.account_id = m.account_id AND CAST(j.value AS INTEGER) = m.id)
         AND NOT EXISTS (SELECT 1 FROM status_edits e, json_each(e.media) j
                         WHERE e.account_id = m.account_id AND CAST(json_extract(j.value, '$.id') AS INTEGER) = m.id)
       ORDER BY m.created_at LIMIT @limit`,
    )
    .all({ before, limit });
}

/** Every storage key a row refers to (media, avatars and headers, emojis, preview cards). */
export function findReferencedKeys(db: Db): Set<string> {
  const keys = new Set<string>();
  const sql = [
    'SELECT file_key AS k FROM media_attachments WHERE file_key IS NOT NULL',
    'SELECT preview_key FROM media_attachments WHERE preview_key IS NOT NULL',
    'SELECT avatar_file FROM accounts WHERE avatar_file IS NOT NULL',
    'SELECT avatar_static_file FROM accounts WHERE avatar_static_file IS NOT NULL',
    'SELECT header_file FROM accounts WHERE header_file IS NOT NULL',
    'SELECT header_static_file FROM accounts WHERE header_static_file IS NOT NULL',
    'SELECT image_file FROM custom_emojis WHERE image_file IS NOT NULL',
    'SELECT static_file FROM custom_emojis WHERE static_file IS NOT NULL',
    'SELECT image_key FROM preview_cards WHERE image_key IS NOT NULL',
  ].join(' UNION ALL ');
  for (const key of db.query(sql).pluck()) if (typeof key === 'string') keys.add(key);
  return keys;
}

/** Every staged upload a job still waits on. */
export function findStagedPaths(db: Db): Set<string> {
  return new Set(db.query('SELECT source_path FROM media_jobs').pluck().map(String));
}

/** When a periodic media task last ran (ms), or null. */
export function findMaintenanceRun(db: Db, task: string): number | null {
  const v = db.query('SELECT last_run_at FROM media_maintenance WHERE task = ?').pluck(task)[0];
  return typeof v === 'number' ? v : null;
}

/** Records that a periodic media task ran at `at`. */
export function recordMaintenanceRun(db: Db, task: string, at: number): void {
  db.query('INSERT INTO media_maintenance (task, last_run_at) VALUES (?, ?) ON CONFLICT (task) DO UPDATE SET last_run_at = excluded.last_run_at').run(task, at);
}
