import type { Db } from '../connection.js';

/** Report categories, as Mastodon names them. */
export type ReportCategory = 'other' | 'spam' | 'legal' | 'violation';

/** A row of `reports`. */
export interface ReportRow {
  id: string;
  account_id: string;
  target_account_id: string;
  /** JSON array of status ids. */
  status_ids: string;
  /** JSON array of rule ids, or null unless the category is violation. */
  rule_ids: string | null;
  comment: string;
  category: ReportCategory;
  forwarded: number;
  uri: string | null;
  assigned_account_id: string | null;
  action_taken_at: number | null;
  action_taken_by_account_id: string | null;
  created_at: number;
  updated_at: number;
}

/** Inserts a report. */
export function insertReport(db: Db, row: ReportRow): void {
  db.query(
    `INSERT INTO reports (id, account_id, target_account_id, status_ids, rule_ids, comment, category, forwarded, uri,
       assigned_account_id, action_taken_at, action_taken_by_account_id, created_at, updated_at)
     VALUES (@id, @account_id, @target_account_id, @status_ids, @rule_ids, @comment, @category, @forwarded, @uri,
       @assigned_account_id, @action_taken_at, @action_taken_by_account_id, @created_at, @updated_at)`,
  ).run({ ...row });
}

/** Loads reports by id, keyed by id. */
export function findReportsByIds(db: Db, ids: readonly string[]): Map<string, ReportRow> {
  const out = new Map<string, ReportRow>();
  if (ids.length === 0) return out;
  const rows = db
    .query<ReportRow>('SELECT * FROM reports WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))')
    .all(JSON.stringify([...new Set(ids)]));
  for (const row of rows) out.set(row.id, row);
  return out;
}

/** True when another report about the same account still waits for action. */
export function hasUnresolvedSiblings(db: Db, report: Pick<ReportRow, 'id' | 'target_account_id'>): boolean {
  return (
    db
      .query('SELECT 1 FROM reports WHERE target_account_id = @target_account_id AND id <> @id AND action_taken_at IS NULL LIMIT 1')
      .get({ target_account_id: report.target_account_id, id: report.id }) !== undefined
  );
}

/** How many of the rule ids name existing rules. */
export function countExistingRules(db: Db, ruleIds: readonly string[]): number {
  if (ruleIds.length === 0) return 0;
  return (
    db.query<{ n: number }>('SELECT count(*) AS n FROM rules WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))').get(JSON.stringify([...new Set(ruleIds)]))
      ?.n ?? 0
  );
}

/** Of the status ids, those written (or reblogged) by `accountId`. */
export function statusIdsOfAccount(db: Db, accountId: string, statusIds: readonly string[]): Set<string> {
  if (statusIds.length === 0) return new Set();
  const rows = db
    .query<{ id: string }>(
      'SELECT id FROM statuses WHERE account_id = @account_id AND id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))',
    )
    .all({ account_id: accountId, ids: JSON.stringify([...new Set(statusIds)]) });
  return new Set(rows.map((r) => r.id));
}

