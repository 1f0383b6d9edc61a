import type { Db } from '../connection.js';

/** A row of `annual_reports`. */
export interface AnnualReportRow {
  account_id: string;
  year: number;
  schema_version: number;
  data: string;
  viewed_at: number | null;
  created_at: number;
}

/** An account's report for a year, if generated. */
export function findAnnualReport(db: Db, accountId: string, year: number): AnnualReportRow | undefined {
  return db.query<AnnualReportRow>('SELECT * FROM annual_reports WHERE account_id = @account_id AND year = @year').get({ account_id: accountId, year });
}

/** An account's reports not marked read yet, oldest year first. */
export function unreadAnnualReports(db: Db, accountId: string): AnnualReportRow[] {
  return db.query<AnnualReportRow>('SELECT * FROM annual_reports WHERE account_id = ? AND viewed_at IS NULL ORDER BY year').all(accountId);
}

/** Stores a report (a second one for the same year is ignored); true when stored. */
export function insertAnnualReport(db: Db, row: AnnualReportRow): boolean {
  return (
    db
      .query(
        `INSERT OR IGNORE INTO annual_reports (account_id, year, schema_version, data, viewed_at, created_at)
         VALUES (@account_id, @year, @schema_version, @data, @viewed_at, @created_at)`,
      )
      .run({ ...row }).changes > 0
  );
}

/** Marks a report read. */
export function markAnnualReportViewed(db: Db, accountId: string, year: number, at: number): void {
  db.query('UPDATE annual_reports SET viewed_at = coalesce(viewed_at, @at) WHERE account_id = @account_id AND year = @year').run({ account_id: accountId, year, at });
}

/** An account's statuses within an id range (a year): how many of each kind the archetype looks at. */
export interface YearStatusCounts {
  total: number;
  reblogs: number;
  /** Replies to others (a thread of one's own is not a reply here). */
  replies: number;
  /** Neither boosts nor replies to others. */
  standalone: number;
  polls: number;
  /** Public or unlisted. */
  distributable: number;
  tagged: number;
}

const IN_YEAR = 's.account_id = @account_id AND s.id >= @from_id AND s.id < @to_id';

/** Counts of an account's statuses of the year, by kind. */
export function yearStatusCounts(db: Db, accountId: string, fromId: string, toId: string): YearStatusCounts {
  const row = db
    .query<YearStatusCounts>(
      `SELECT count(*) AS total,
         coalesce(sum(s.reblog_of_id IS NOT NULL), 0) AS reblogs,
         coalesce(sum(s.in_reply_to_id IS NOT NULL AND coalesce(s.in_reply_to_account_id, 0) <> s.account_id), 0) AS replies,
         coalesce(sum(s.reblog_of_id IS NULL AND (s.in_reply_to_id IS NULL OR s.in_reply_to_account_id = s.account_id)), 0) AS standalone,
         coalesce(sum(EXISTS (SELECT 1 FROM polls p WHERE p.status_id = s.id)), 0) AS polls,
         coalesce(sum(s.visibility IN ('public', 'unlisted')), 0) AS distributable,
         coalesce(sum(EXISTS (SELECT 1 FROM statuses_tags st WHERE st.status_id = s.id)), 0) AS tagged
       FROM statuses s WHERE ${IN_YEAR}`,
    )
    .get({ account_id: accountId, from_id: fromId, to_id: toId });
  return row ?? { total: 0, reblogs: 0, replies: 0, standalone: 0, polls: 0, distributable: 0, tagged: 0 };
}

/** New followers of an account between two times. */
export function followersGainedBetween(db: Db, accountId: string, from: number, to: number): number {
  return (
    db
      .query<{ n: number }>('SELECT count(*) AS n FROM follows WHERE target_account_id = @account_id AND created_at >= @from AND created_at < @to')
      .get({ account_id: accountId, from, to })?.n ?? 0
  );
}

/** The hashtags the account used most in the year, each used more than once, most used first. */
export function topYearHashtags(db: Db, accountId: string, fromId: string, toId: string, limit: number): { name: string; count: number }[] {
  return db
    .query<{ name: string; count: number }>(
      `SELECT t.name AS name, count(*) AS count FROM statuses s JOIN statuses_tags st ON st.status_id = s.id JOIN tags t ON t.id = st.tag_id
       WHERE ${IN_YEAR} GROUP BY t.id HAVING count(*) > 1 ORDER BY count DESC, t.name_normalized LIMIT @limit`,
    )
    .all({ account_id: accountId, from_id: fromId, to_id: toId, limit });
}

/** The account's most boosted public or unlisted status of the year (boosted at least once), if any. */
export function mostReblogged(db: Db, accountId: string, fromId: string, toId: string): string | null {
  return (
    db
      .query<{ id: string }>(
        `SELECT s.id FROM statuses s WHERE ${IN_YEAR} AND s.reblog_of_id IS NULL AND s.visibility IN ('public', 'unlisted')
         AND s.reblogs_count > 0 ORDER BY s.reblogs_count DESC, s.id DESC LIMIT 1`,
      )
      .get({ account_id: accountId, from_id: fromId, to_id: toId })?.id ?? null
  );
}
