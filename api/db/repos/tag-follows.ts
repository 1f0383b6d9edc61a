import type { Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';
import type { TagRow } from './tags.js';

/**
 * Hashtags accounts follow (`tag_follows`) and feature on their profile (`featured_tags`).
 */

/** A row of `tag_follows`. */
export interface TagFollowRow {
  id: string;
  account_id: string;
  tag_id: string;
  created_at: number;
}

/** A row of `featured_tags`. */
export interface FeaturedTagRow {
  id: string;
  account_id: string;
  tag_id: string;
  created_at: number;
}

/** A featured tag with its tag's name and the account's use of it (public and unlisted originals). */
export interface FeaturedTagStatsRow extends FeaturedTagRow {
  /** The name it was featured under, or else the tag's. */
  name: string;
  /** The tag's own name. */
  tag_name: string;
  statuses_count: number;
  /** ms of the account's latest status with the tag, or null. */
  last_status_at: number | null;
}

/** Loads tags by id (order not kept). */
export function findTagsByIds(db: Db, ids: readonly string[]): TagRow[] {
  if (ids.length === 0) return [];
  return db.query<TagRow>('SELECT * FROM tags WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))').all(JSON.stringify([...new Set(ids)]));
}

/** Follows a tag; false when it was already followed. */
export function insertTagFollow(db: Db, row: TagFollowRow): boolean {
  return (
    db
      .query('INSERT OR IGNORE INTO tag_follows (id, account_id, tag_id, created_at) VALUES (@id, @account_id, @tag_id, @created_at)')
      .run({ ...row }).changes > 0
  );
}

/** Stops following a tag; false when it was not followed. */
export function deleteTagFollow(db: Db, accountId: string, tagId: string): boolean {
  return db.query('DELETE FROM tag_follows WHERE account_id = @account_id AND tag_id = @tag_id').run({ account_id: accountId, tag_id: tagId }).changes > 0;
}

/** One page of the tags an account follows, by follow id (newest first), with the follow id as cursor. */
export function followedTagsPage(db: Db, accountId: string, page: PageBounds): (TagRow & { follow_id: string })[] {
  const p = pageSql('f.id', page);
  const rows = db
    .query<TagRow & { follow_id: string }>(
      `SELECT t.*, f.id AS follow_id FROM tag_follows f JOIN tags t ON t.id = f.tag_id
       WHERE f.account_id = @account_id ${p.where} ${p.orderLimit}`,
    )
    .all({ account_id: accountId, ...p.params });
  return p.reverse ? rows.reverse() : rows;
}

/** Local accounts (with a user) that follow any of the tags, each once. */
export function localFollowersOfTags(db: Db, tagIds: readonly string[]): string[] {
  if (tagIds.length === 0) return [];
  return db
    .query<{ account_id: string }>(
      `SELECT DISTINCT f.account_id FROM tag_follows f JOIN users u ON u.account_id = f.account_id
       WHERE f.tag_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@tag_ids))`,
    )
    .all({ tag_ids: JSON.stringify([...new Set(tagIds)]) })
    .map((r) => r.account_id);
}

/** Which of the tags the viewer follows and features. */
export function tagRelationshipRows(db: Db, viewerId: string, tagIds: readonly string[]): { tag_id: string; following: number; featuring: number }[] {
  if (tagIds.length === 0) return [];
  return db
    .query<{ tag_id: string; following: number; featuring: number }>(
      `SELECT CAST(j.value AS INTEGER) AS tag_id,
         EXISTS (SELECT 1 FROM tag_follows f WHERE f.account_id = @viewer_id AND f.tag_id = CAST(j.value AS INTEGER)) AS following,
         EXISTS (SELECT 1 FROM featured_tags ft WHERE ft.account_id = @viewer_id AND ft.tag_id = CAST(j.value AS INTEGER)) AS featuring
       FROM json_each(@tag_ids) j`,
    )
    .all({ viewer_id: viewerId, tag_ids: JSON.stringify([...new Set(tagIds)]) });
}

/** An account's featured tags in the order they were added, with their statistics. */
export function featuredTagsWithStats(db: Db, accountId: string): FeaturedTagStatsRow[] {
  return db
    .query<FeaturedTagStatsRow>(
      `SELECT ft.id, ft.account_id, ft.tag_id, ft.created_at, coalesce(ft.name, t.name) AS name, t.name AS tag_name,
         count(s.id) AS statuses_count, max(s.created_at) AS last_status_at
       FROM featured_tags ft JOIN tags t ON t.id = ft.tag_id
       LEFT JOIN statuses_tags st ON st.tag_id = ft.tag_id
       LEFT JOIN statuses s ON s.id = st.status_id AND s.account_id = ft.account_id
         AND s.visibility IN ('public', 'unlisted') AND s.reblog_of_id IS NULL
       WHERE ft.account_id = @account_id
       GROUP BY ft.id ORDER BY ft.id`,
    )
    .all({ account_id: accountId });
}

/** A featured tag by id. */
export function findFeaturedTag(db: Db, id: string): FeaturedTagRow | undefined {
  return db.query<FeaturedTagRow>('SELECT * FROM featured_tags WHERE id = @id').get({ id });
}

/** An account's featured tag for a tag, if featured. */
export function findFeaturedTagByTag(db: Db, accountId: string, tagId: string): FeaturedTagRow | undefined {
  return db.query<FeaturedTagRow>('SELECT * FROM featured_tags WHERE account_id = @account_id AND tag_id = @tag_id').get({ account_id: accountId, tag_id: tagId });
}

/** An account's featured tag featured under exactly this name (case matters), if any. */
export function findFeaturedTagByName(db: Db, accountId: string, name: string): FeaturedTagRow | undefined {
  return db.query<FeaturedTagRow>('SELECT * FROM featured_tags WHERE account_id = @account_id AND name = @name').get({ account_id: accountId, name });
}

/** How many tags an account features. */
export function countFeaturedTags(db: Db, accountId: string): number {
  return db.query<{ n: number }>('SELECT count(*) AS n FROM featured_tags WHERE account_id = @account_id').get({ account_id: accountId })?.n ?? 0;
}

/** Inserts a featured tag, with the name it was featured under when there is one. */
export function insertFeaturedTag(db: Db, row: FeaturedTagRow, name: string | null = null): void {
  db.query('INSERT INTO featured_tags (id, account_id, tag_id, created_at, name) VALUES (@id, @account_id, @tag_id, @created_at, @name)').run({
    id: row.id,
    account_id: row.account_id,
    tag_id: row.tag_id,
    created_at: row.created_at,
    name,
  });
}

/** Deletes a featured tag by id. */
export function deleteFeaturedTag(db: Db, id: string): void {
  db.query('DELETE FROM featured_tags WHERE id = @id').run({ id });
}

/**
 * The tags an account used most in its `recent` latest statuses (then the most recently used),
 * leaving out those it already features.
 */
export function recentlyUsedTags(db: Db, accountId: string, recent: number, limit: number): TagRow[] {
  return db
    .query<TagRow>(
      `SELECT t.* FROM (
         SELECT st.tag_id, count(*) AS uses, max(st.status_id) AS latest_id FROM statuses_tags st
         WHERE st.status_id IN (
           SELECT id FROM statuses WHERE account_id = @account_id AND reblog_of_id IS NULL ORDER BY id DESC LIMIT @recent)
         GROUP BY st.tag_id
       ) u JOIN tags t ON t.id = u.tag_id
       WHERE NOT EXISTS (SELECT 1 FROM featured_tags ft WHERE ft.account_id = @account_id AND ft.tag_id = t.id)
       ORDER BY u.uses DESC, u.latest_id DESC LIMIT @limit`,
    )
    .all({ account_id: accountId, recent, limit });
}
