import type { Db } from '../connection.js';
import type { CustomEmojiRow } from './accounts.js';
import type { StatusRow } from './statuses.js';

/** A row of `announcements` (see 0091_announcements.sql); times in milliseconds. */
export interface AnnouncementRow {
  id: string;
  text: string;
  published: number;
  all_day: number;
  scheduled_at: number | null;
  starts_at: number | null;
  ends_at: number | null;
  published_at: number | null;
  /** JSON array of status ids, or null before the first publication. */
  status_ids: string | null;
  created_at: number;
  updated_at: number;
}

/** The columns an edit may change. */
export type AnnouncementChanges = Partial<Omit<AnnouncementRow, 'id' | 'created_at'>>;

/** One reaction name of an announcement with its count and whether the viewer gave it. */
export interface ReactionCountRow {
  announcement_id: string;
  name: string;
  custom_emoji_id: string | null;
  count: number;
  me: number;
}

/** A pending streaming event (see `announcement_outbox`). */
export interface AnnouncementOutboxRow {
  id: string;
  announcement_id: string;
  event: 'announcement' | 'announcement.delete';
}

// The order users see them in, as Mastodon's `chronological` scope: by start, else schedule, else
// publication, else creation.
const CHRONOLOGY = 'COALESCE(starts_at, scheduled_at, published_at, created_at)';

/** Inserts an announcement; returns the id it was given (the next number, never one used before). */
export function insertAnnouncement(db: Db, row: Omit<AnnouncementRow, 'id'>): string {
  return db
    .query(
      `INSERT INTO announcements (text, published, all_day, scheduled_at, starts_at, ends_at, published_at, status_ids, created_at, updated_at)
       VALUES (@text, @published, @all_day, @scheduled_at, @starts_at, @ends_at, @published_at, @status_ids, @created_at, @updated_at)`,
    )
    .run({ ...row }).lastInsertRowid;
}

/** Changes some columns of an announcement; returns the number of rows changed. */
export function updateAnnouncement(db: Db, id: string, changes: AnnouncementChanges): number {
  const columns = Object.keys(changes).filter((k) => (changes as Record<string, unknown>)[k] !== undefined);
  if (columns.length === 0) return 0;
  const set = columns.map((c) => `${c} = @${c}`).join(', ');
  return db.query(`UPDATE announcements SET ${set} WHERE id = @id`).run({ ...changes, id }).changes;
}

/** Deletes an announcement (its dismissals and reactions go with it); returns the number deleted. */
export function deleteAnnouncement(db: Db, id: string): number {
  return db.query('DELETE FROM announcements WHERE id = ?').run(id).changes;
}

/** Loads one announcement, published or not. */
export function findAnnouncement(db: Db, id: string): AnnouncementRow | undefined {
  return db.query<AnnouncementRow>('SELECT * FROM announcements WHERE id = ?').get(id);
}

/** Loads one announcement if users see it now: published and not ended at `at`. */
export function findCurrentAnnouncement(db: Db, id: string, at: number): AnnouncementRow | undefined {
  return db
    .query<AnnouncementRow>('SELECT * FROM announcements WHERE id = @id AND published = 1 AND (ends_at IS NULL OR ends_at > @at)')
    .get({ id, at });
}

/** The announcements users see at `at`, in chronological order. */
export function listCurrentAnnouncements(db: Db, at: number): AnnouncementRow[] {
  return db
    .query<AnnouncementRow>(`SELECT * FROM announcements WHERE published = 1 AND (ends_at IS NULL OR ends_at > @at) ORDER BY ${CHRONOLOGY}, id`)
    .all({ at });
}

/** Every announcement, newest first in the same chronology (the staff's list). */
export function listAllAnnouncements(db: Db): AnnouncementRow[] {
  return db.query<AnnouncementRow>(`SELECT * FROM announcements ORDER BY ${CHRONOLOGY} DESC, id DESC`).all();
}

/** Unpublished announcements whose scheduled time is `at` or earlier, oldest first. */
export function findDueAnnouncementIds(db: Db, at: number, limit: number): string[] {
  return db
    .query<{ id: string }>('SELECT id FROM announcements WHERE published = 0 AND scheduled_at IS NOT NULL AND scheduled_at <= @at ORDER BY scheduled_at, id LIMIT @limit')
    .all({ at, limit })
    .map((r) => r.id);
}

/** Published announcements whose end is `at` or earlier. */
export function findEndedAnnouncementIds(db: Db, at: number, limit: number): string[] {
  return db
    .query<{ id: string }>('SELECT id FROM announcements WHERE published = 1 AND ends_at IS NOT NULL AND ends_at <= @at ORDER BY ends_at, id LIMIT @limit')
    .all({ at, limit })
    .map((r) => r.id);
}

/**
 * A remote status by the URL of its page (for the links of an announcement's text). There is no
 * index on URLs: this runs only when an announcement is published or edited.
 */
export function findRemoteStatusByUrl(db: Db, url: string): StatusRow | undefined {
  return db.query<StatusRow>('SELECT * FROM statuses WHERE url = ? AND local = 0 LIMIT 1').get(url);
}

// ---- dismissals ----

/** Records that an account dismissed an announcement (nothing happens if it already did). */
export function insertDismissal(db: Db, announcementId: string, accountId: string, at: number): void {
  db.query('INSERT OR IGNORE INTO announcement_dismissals (announcement_id, account_id, created_at) VALUES (@announcement_id, @account_id, @at)').run({
    announcement_id: announcementId,
    account_id: accountId,
    at,
  });
}

/** Which of the announcements an account dismissed. */
export function findDismissedAmong(db: Db, accountId: string, announcementIds: readonly string[]): Set<string> {
  if (announcementIds.length === 0) return new Set();
  const rows = db
    .query<{ announcement_id: string }>(
      `SELECT announcement_id FROM announcement_dismissals
       WHERE account_id = @account_id AND announcement_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))`,
    )
    .all({ account_id: accountId, ids: JSON.stringify(announcementIds) });
  return new Set(rows.map((r) => r.announcement_id));
}

// ---- reactions ----

/** Adds an account's reaction; false when it had already given that one. */
export function insertReaction(
  db: Db,
  row: { id: string; announcement_id: string; account_id: string; name: string; custom_emoji_id: string | null; created_at: number },
): boolean {
  return (
    db
      .query(
        `INSERT OR IGNORE INTO announcement_reactions (id, announcement_id, account_id, name, custom_emoji_id, created_at)
         VALUES (@id, @announcement_id, @account_id, @name, @custom_emoji_id, @created_at)`,
      )
      .run({ ...row }).changes > 0
  );
}

/** Removes an account's reaction; false when it had none of that name. */
export function deleteReaction(db: Db, announcementId: string, accountId: string, name: string): boolean {
  return (
    db
      .query('DELETE FROM announcement_reactions WHERE announcement_id = @announcement_id AND account_id = @account_id AND name = @name')
      .run({ announcement_id: announcementId, account_id: accountId, name }).changes > 0
  );
}

/** Whether an account gave the announcement the reaction `name`. */
export function hasReaction(db: Db, announcementId: string, accountId: string, name: string): boolean {
  return (
    db
      .query('SELECT 1 AS one FROM announcement_reactions WHERE announcement_id = @announcement_id AND account_id = @account_id AND name = @name')
      .get({ announcement_id: announcementId, account_id: accountId, name }) !== undefined
  );
}

/** Whether anyone reacted to the announcement with `name`. */
export function reactionNameExists(db: Db, announcementId: string, name: string): boolean {
  return (
    db.query('SELECT 1 AS one FROM announcement_reactions WHERE announcement_id = @announcement_id AND name = @name LIMIT 1').get({ announcement_id: announcementId, name }) !==
    undefined
  );
}

/** How many different reaction names the announcement has besides `name`. */
export function countOtherReactionNames(db: Db, announcementId: string, name: string): number {
  return (
    db
      .query<{ n: number }>('SELECT COUNT(DISTINCT name) AS n FROM announcement_reactions WHERE announcement_id = @announcement_id AND name <> @name')
      .get({ announcement_id: announcementId, name })?.n ?? 0
  );
}

/**
 * The reactions of some announcements, one row per announcement and name, in the order each name
 * was first given; `me` tells whether `viewerId` (null: nobody) gave it.
 */
export function findReactionCounts(db: Db, announcementIds: readonly string[], viewerId: string | null): ReactionCountRow[] {
  if (announcementIds.length === 0) return [];
  return db
    .query<ReactionCountRow>(
      `SELECT announcement_id, name, MAX(custom_emoji_id) AS custom_emoji_id, COUNT(*) AS count,
              MAX(account_id = @viewer_id) AS me
       FROM announcement_reactions
       WHERE announcement_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))
       GROUP BY announcement_id, name
       ORDER BY announcement_id, MIN(created_at), MIN(id)`,
    )
    .all({ ids: JSON.stringify(announcementIds), viewer_id: viewerId });
}

/** The custom emojis reactions name, by id (enabled or not: a reaction keeps its picture). */
export function findReactionEmojis(db: Db, ids: readonly string[]): Map<string, CustomEmojiRow> {
  if (ids.length === 0) return new Map();
  const rows = db
    .query<CustomEmojiRow>('SELECT * FROM custom_emojis WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))')
    .all(JSON.stringify([...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r]));
}

/** The instance's own enabled custom emoji with exactly this shortcode (what a reaction may name). */
export function findLocalEnabledEmoji(db: Db, shortcode: string): CustomEmojiRow | undefined {
  return db.query<CustomEmojiRow>('SELECT * FROM custom_emojis WHERE domain IS NULL AND disabled = 0 AND shortcode = ?').get(shortcode);
}

// ---- streaming outbox ----

/** Queues a streaming event about an announcement (inside the caller's transaction). */
export function insertOutboxEvent(db: Db, announcementId: string, event: AnnouncementOutboxRow['event'], at: number): void {
  db.query('INSERT INTO announcement_outbox (announcement_id, event, created_at) VALUES (@announcement_id, @event, @at)').run({
    announcement_id: announcementId,
    event,
    at,
  });
}

/** Takes every queued streaming event, oldest first, removing them (inside the caller's transaction). */
export function takeOutboxEvents(db: Db): AnnouncementOutboxRow[] {
  const rows = db.query<AnnouncementOutboxRow>('SELECT id, announcement_id, event FROM announcement_outbox ORDER BY id').all();
  if (rows.length > 0) db.query('DELETE FROM announcement_outbox WHERE id <= @last_id').run({ last_id: rows[rows.length - 1]?.id });
  return rows;
}
