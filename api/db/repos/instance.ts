import type { Db } from '../connection.js';
import type { CustomEmojiRow } from './accounts.js';

/** A row of `rules`. */
export interface RuleRow {
  id: string;
  text: string;
  hint: string;
  position: number;
  created_at: number;
  updated_at: number;
}

// ---- rules ----

/** Every rule in display order. */
export function listRuleRows(db: Db): RuleRow[] {
  return db.query<RuleRow>('SELECT * FROM rules ORDER BY position, id').all();
}

/** One rule by id. */
export function findRuleRow(db: Db, id: string): RuleRow | undefined {
  return db.query<RuleRow>('SELECT * FROM rules WHERE id = @id').get({ id });
}

/** The position after the last rule. */
export function nextRulePosition(db: Db): number {
  return db.query<{ n: number | null }>('SELECT max(position) + 1 AS n FROM rules').get()?.n ?? 0;
}

/** Inserts a rule. */
export function insertRuleRow(db: Db, row: RuleRow): void {
  db.query('INSERT INTO rules (id, text, hint, position, created_at, updated_at) VALUES (@id, @text, @hint, @position, @created_at, @updated_at)').run({ ...row });
}

/** Changes a rule's text, hint and position; returns the number of rows changed. */
export function updateRuleRow(db: Db, row: Pick<RuleRow, 'id' | 'text' | 'hint' | 'position' | 'updated_at'>): number {
  return db.query('UPDATE rules SET text = @text, hint = @hint, position = @position, updated_at = @updated_at WHERE id = @id').run({ ...row }).changes;
}

/** Deletes a rule; returns the number of rows deleted. */
export function deleteRuleRow(db: Db, id: string): number {
  return db.query('DELETE FROM rules WHERE id = @id').run({ id }).changes;
}

// ---- custom emojis ----

/** Local emojis that are enabled, by shortcode (case-insensitively). */
export function listLocalEmojiRows(db: Db): CustomEmojiRow[] {
  return db
    .query<CustomEmojiRow>('SELECT * FROM custom_emojis WHERE domain IS NULL AND disabled = 0 ORDER BY lower(shortcode), shortcode')
    .all();
}

/** A local emoji by shortcode (exact). */
export function findLocalEmojiRow(db: Db, shortcode: string): CustomEmojiRow | undefined {
  return db.query<CustomEmojiRow>('SELECT * FROM custom_emojis WHERE domain IS NULL AND shortcode = ?').get(shortcode);
}

/** Inserts an emoji row. */
export function insertEmojiRow(db: Db, row: CustomEmojiRow): void {
  db.query(
    `INSERT INTO custom_emojis (id, shortcode, domain, uri, image_file, static_file, image_remote_url, category, visible_in_picker, disabled, created_at, updated_at)
     VALUES (@id, @shortcode, @domain, @uri, @image_file, @static_file, @image_remote_url, @category, @visible_in_picker, @disabled, @created_at, @updated_at)`,
  ).run({ ...row });
}

// ---- stats ----

/** The account of the instance owner (the first user with role `owner`), if any. */
export function findOwnerAccountId(db: Db): string | undefined {
  return db.query<{ account_id: string }>("SELECT account_id FROM users WHERE role = 'owner' ORDER BY id LIMIT 1").get()?.account_id;
}

/** Local users who can sign in: confirmed, approved, not disabled, account not suspended. */
export function countActiveLocalUsers(db: Db): number {
  return (
    db
      .query<{ n: number }>(
        `SELECT count(*) AS n FROM users JOIN accounts ON accounts.id = users.account_id
         WHERE users.confirmed_at IS NOT NULL AND users.approved = 1 AND users.disabled = 0 AND accounts.suspended_at IS NULL`,
      )
      .get()?.n ?? 0
  );
}

/** Statuses written on this instance. */
export function countLocalStatuses(db: Db): number {
  return db.query<{ n: number }>('SELECT count(*) AS n FROM statuses WHERE local = 1').get()?.n ?? 0;
}

/** Every distinct domain of the remote accounts we know, as stored. */
export function listRemoteDomains(db: Db): string[] {
  return db.query('SELECT DISTINCT domain FROM accounts WHERE domain IS NOT NULL').pluck().map(String);
}

/**
 * Users active since `since` (ms): signed in, got a token (every login issues one) or used one.
 * Only token use is recorded with its time, so this is the best measure the data allows.
 */
export function countUsersActiveSince(db: Db, since: number): number {
  return (
    db
      .query<{ n: number }>(
        `SELECT count(*) AS n FROM users u
         WHERE u.last_sign_in_at >= @since
            OR EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.user_id = u.id AND (t.last_used_at >= @since OR t.created_at >= @since))`,
      )
      .get({ since })?.n ?? 0
  );
}

/**
 * Counts per bucket: `bucket` is the index of the week since `start`. (JavaScript numbers are bound
 * as REAL, so the week index is cast back to an integer.)
 */
export interface BucketCount {
  bucket: number;
  n: number;
}

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Local statuses anyone may read (public and unlisted; private and direct ones are not counted)
 * created in each week of [start, end). Ids are time-sortable, so the id range narrows the scan.
 */
export function countPublicLocalStatusesByWeek(db: Db, range: { start: number; end: number; min_id: string; max_id: string }): BucketCount[] {
  return db
    .query<BucketCount>(
      `SELECT CAST((created_at - @start) / @week AS INTEGER) AS bucket, count(*) AS n FROM statuses
       WHERE id >= @min_id AND id < @max_id AND local = 1 AND visibility IN ('public', 'unlisted')
         AND created_at >= @start AND created_at < @end
       GROUP BY bucket`,
    )
    .all({ ...range, week: WEEK_MS });
}

/** Distinct users per week of [start, end) who signed in, got a token or used one. */
export function countLoginsByWeek(db: Db, range: { start: number; end: number }): BucketCount[] {
  return db
    .query<BucketCount>(
      `SELECT CAST((at - @start) / @week AS INTEGER) AS bucket, count(DISTINCT uid) AS n FROM (
         SELECT user_id AS uid, created_at AS at FROM oauth_tokens WHERE user_id IS NOT NULL
         UNION ALL SELECT user_id, last_used_at FROM oauth_tokens WHERE user_id IS NOT NULL AND last_used_at IS NOT NULL
         UNION ALL SELECT id, last_sign_in_at FROM users WHERE last_sign_in_at IS NOT NULL
       ) WHERE at >= @start AND at < @end
       GROUP BY bucket`,
    )
    .all({ ...range, week: WEEK_MS });
}

/** Local users created per week of [start, end). */
export function countRegistrationsByWeek(db: Db, range: { start: number; end: number }): BucketCount[] {
  return db
    .query<BucketCount>('SELECT CAST((created_at - @start) / @week AS INTEGER) AS bucket, count(*) AS n FROM users WHERE created_at >= @start AND created_at < @end GROUP BY bucket')
    .all({ ...range, week: WEEK_MS });
}
