import type { Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';
import type { RuleRow } from './instance.js';
import type { ReportCategory, ReportRow } from './reports.js';

/** The admin listing's filters (Mastodon's ReportFilter, as the admin API takes it). */
export interface AdminReportQuery {
  /** Resolved reports (action taken) instead of the open ones. */
  resolved: boolean;
  /** Filed by this account. */
  accountId?: string | undefined;
  /** About this account. */
  targetAccountId?: string | undefined;
}

/** One page of reports matching the filters, newest first. */
export function pageAdminReports(db: Db, q: AdminReportQuery, page: PageBounds): ReportRow[] {
  const p = pageSql('id', page);
  const where = [q.resolved ? 'action_taken_at IS NOT NULL' : 'action_taken_at IS NULL'];
  if (q.accountId !== undefined) where.push('account_id = @account_id');
  if (q.targetAccountId !== undefined) where.push('target_account_id = @target_account_id');
  const rows = db
    .query<ReportRow>(`SELECT * FROM reports WHERE ${where.join(' AND ')} ${p.where} ${p.orderLimit}`)
    .all({ ...p.params, account_id: q.accountId, target_account_id: q.targetAccountId });
  return p.reverse ? rows.reverse() : rows;
}

/** A report by id. */
export function findReport(db: Db, id: string): ReportRow | undefined {
  return db.query<ReportRow>('SELECT * FROM reports WHERE id = @id').get({ id });
}

/** Writes what staff change on a report: its category and rules, assignee and resolution. */
export function updateReportHandling(
  db: Db,
  row: Pick<ReportRow, 'id' | 'category' | 'rule_ids' | 'assigned_account_id' | 'action_taken_at' | 'action_taken_by_account_id' | 'updated_at'> & { category: ReportCategory },
): void {
  db.query(
    `UPDATE reports SET category = @category, rule_ids = @rule_ids, assigned_account_id = @assigned_account_id,
       action_taken_at = @action_taken_at, action_taken_by_account_id = @action_taken_by_account_id, updated_at = @updated_at
     WHERE id = @id`,
  ).run({ ...row });
}

/** Rules by id (for the rules a report cites), in id order. */
export function findRulesByIds(db: Db, ids: readonly string[]): RuleRow[] {
  if (ids.length === 0) return [];
  return db.query<RuleRow>('SELECT * FROM rules WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids)) ORDER BY position, id').all({ ids: JSON.stringify([...new Set(ids)]) });
}

/** Of the status ids, those that still exist. */
export function existingStatusIds(db: Db, ids: readonly string[]): string[] {
  if (ids.length === 0) return [];
  return db
    .query<{ id: string }>('SELECT id FROM statuses WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))')
    .all({ ids: JSON.stringify([...new Set(ids)]) })
    .map((r) => r.id);
}
