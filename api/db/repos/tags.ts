import type { Db } from '../connection.js';

/** A row of `tags`. */
export interface TagRow {
  id: string;
  name: string;
  name_normalized: string;
  usable: number;
  listable: number;
  last_status_at: number | null;
  created_at: number;
}

/** Finds a tag by its normalized name. */
export function findTagByNormalizedName(db: Db, normalized: string): TagRow | undefined {
  return db.query<TagRow>('SELECT * FROM tags WHERE name_normalized = ?').get(normalized);
}

/** Inserts a tag row. */
export function insertTag(db: Db, row: TagRow): void {
  db.query(
    `INSERT INTO tags (id, name, name_normalized, usable, listable, last_status_at, created_at)
     VALUES (@id, @name, @name_normalized, @usable, @listable, @last_status_at, @created_at)`,
  ).run({ ...row });
}

/** Records that a tag was just used by a status. */
export function touchTag(db: Db, id: string, at: number): void {
  db.query('UPDATE tags SET last_status_at = max(coalesce(last_status_at, 0), @at) WHERE id = @id').run({ id, at });
}

/** Replaces the tags linked to a status. */
export function setStatusTags(db: Db, statusId: string, tagIds: readonly string[]): void {
  db.query('DELETE FROM statuses_tags WHERE status_id = ?').run(statusId);
  for (const tagId of new Set(tagIds)) {
    db.query('INSERT INTO statuses_tags (status_id, tag_id) VALUES (@status_id, @tag_id)').run({ status_id: statusId, tag_id: tagId });
  }
}

/** The tags of a batch of statuses, as (status id, tag row) pairs ordered by tag name. */
export function findTagsByStatusIds(db: Db, statusIds: readonly string[]): (TagRow & { status_id: string })[] {
  if (statusIds.length === 0) return [];
  return db
    .query<TagRow & { status_id: string }>(
      `SELECT tags.*, statuses_tags.status_id FROM statuses_tags JOIN tags ON tags.id = statuses_tags.tag_id
       WHERE statuses_tags.status_id IN (SELECT CAST(value AS INTEGER) FROM json_each(?)) ORDER BY tags.name_normalized`,
    )
    .all(JSON.stringify([...new Set(statusIds)]));
}
