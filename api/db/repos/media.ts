import type { Db } from '../connection.js';

/** A row of `media_attachments` (status_id NULL until attached). */
export interface MediaRow {
  id: string;
  account_id: string;
  status_id: string | null;
  position: number;
  type: 'image' | 'gifv' | 'video' | 'audio' | 'unknown';
  file_key: string | null;
  preview_key: string | null;
  file_content_type: string | null;
  file_size: number | null;
  remote_url: string | null;
  preview_remote_url: string | null;
  description: string | null;
  focus_x: number | null;
  focus_y: number | null;
  meta: string;
  blurhash: string | null;
  processing: 'queued' | 'processing' | 'done' | 'failed';
  created_at: number;
  updated_at: number;
}

/** Loads media rows by id; keyed by id. */
export function findMediaByIds(db: Db, ids: readonly string[]): Map<string, MediaRow> {
  const out = new Map<string, MediaRow>();
  if (ids.length === 0) return out;
  const rows = db
    .query<MediaRow>('SELECT * FROM media_attachments WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))')
    .all(JSON.stringify([...new Set(ids)]));
  for (const r of rows) out.set(r.id, r);
  return out;
}

/** The media of a batch of statuses, in each status's order. */
export function findMediaByStatusIds(db: Db, statusIds: readonly string[]): MediaRow[] {
  if (statusIds.length === 0) return [];
  return db
    .query<MediaRow>(
      `SELECT * FROM media_attachments WHERE status_id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))
       ORDER BY status_id, position, id`,
    )
    .all(JSON.stringify([...new Set(statusIds)]));
}

/** Attaches a media row to a status at a position. */
export function attachMedia(db: Db, mediaId: string, statusId: string, position: number, at: number): void {
  db.query('UPDATE media_attachments SET status_id = @status_id, position = @position, updated_at = @at WHERE id = @id').run({
    id: mediaId,
    status_id: statusId,
    position,
    at,
  });
}

/** Detaches every media row of a status that is not in `keep`. */
export function detachMediaExcept(db: Db, statusId: string, keep: readonly string[], at: number): void {
  db.query(
    `UPDATE media_attachments SET status_id = NULL, updated_at = @at WHERE status_id = @status_id
     AND id NOT IN (SELECT CAST(value AS INTEGER) FROM json_each(@keep))`,
  ).run({ status_id: statusId, keep: JSON.stringify(keep), at });
}

/** Sets a media row's description and focal point. */
export function updateMediaDescription(db: Db, id: string, description: string | null, focusX: number | null, focusY: number | null, at: number): void {
  db.query('UPDATE media_attachments SET description = @description, focus_x = @focus_x, focus_y = @focus_y, updated_at = @at WHERE id = @id').run({
    id,
    description,
    focus_x: focusX,
    focus_y: focusY,
    at,
  });
}

/** Deletes the media rows of a status (DELETE with delete_media). */
export function deleteMediaOfStatus(db: Db, statusId: string): void {
  db.query('DELETE FROM media_attachments WHERE status_id = ?').run(statusId);
}
