import type { PageBounds } from '../../db/paging.js';
import { existingStatusIds, findReport, findRulesByIds, pageAdminReports, updateReportHandling, type AdminReportQuery } from '../../db/repos/admin-reports.js';
import { countExistingRules, type ReportCategory, type ReportRow } from '../../db/repos/reports.js';
import { toMastodonAdminAccount, type AdminAccount } from '../../serializers/admin-account.js';
import { toMastodonAdminReport, type AdminReport } from '../../serializers/admin-report.js';
import { toMastodonRule } from '../../serializers/rule.js';
import { now } from '../../util/clock.js';
import { notFound, unprocessable } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { presentStatuses } from '../statuses/views.js';
import { loadAdminAccountViews } from './accounts-view.js';

/**
 * Reports as staff handle them (`/api/v1/admin/reports` and `hearth reports`): every report,
 * whether filed here through the API or received from another server (a Flag, filed through the
 * same createReport), listed, re-classified, assigned, resolved and reopened. Callers check
 * manage_reports first (the CLI is trusted).
 */

const CATEGORIES: readonly ReportCategory[] = ['other', 'spam', 'legal', 'violation'];

function idList(json: string | null): string[] {
  if (json === null) return [];
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.map(String) : [];
}

/**
 * Admin::Report entities of rows, in their order, with a fixed number of queries: the accounts
 * involved (reporter, target, assignee, resolver) as Admin::Account, the attached statuses that
 * still exist (whatever their visibility: staff see what was reported), and the rules cited.
 */
export function presentAdminReports(deps: Deps, rows: readonly ReportRow[]): AdminReport[] {
  const accountIds = rows.flatMap((r) => [r.account_id, r.target_account_id, r.assigned_account_id, r.action_taken_by_account_id].filter((id): id is string => id !== null));
  const views = loadAdminAccountViews(deps, [...new Set(accountIds)]);
  const accounts = new Map<string, AdminAccount>();
  for (const [id, view] of views) accounts.set(id, toMastodonAdminAccount(view, deps.uris));
  const statusIds = existingStatusIds(deps.db, rows.flatMap((r) => idList(r.status_ids)));
  const statuses = new Map(presentStatuses(deps, statusIds, null).map((s) => [s.id, s]));
  const rules = new Map(findRulesByIds(deps.db, rows.flatMap((r) => idList(r.rule_ids))).map((r) => [r.id, toMastodonRule(r)]));
  return rows.flatMap((row) => {
    const account = accounts.get(row.account_id);
    const targetAccount = accounts.get(row.target_account_id);
    // Both accounts are kept while the report is (deleting one deletes its reports).
    if (!account || !targetAccount) return [];
    const optional = (id: string | null) => (id === null ? null : (accounts.get(id) ?? null));
    return [
      toMastodonAdminReport(row, {
        account,
        targetAccount,
        assignedAccount: optional(row.assigned_account_id),
        actionTakenByAccount: optional(row.action_taken_by_account_id),
        statuses: idList(row.status_ids).flatMap((id) => statuses.get(id) ?? []),
        rules: idList(row.rule_ids).flatMap((id) => rules.get(id) ?? []),
      }),
    ];
  });
}

/** One page of reports, open ones unless `resolved`, optionally by reporter or target; newest first. */
export function listAdminReports(deps: Deps, query: AdminReportQuery, page: PageBounds): AdminReport[] {
  // An id that cannot name an account matches nothing (Rails would find no rows either).
  if ((query.accountId !== undefined && !isId(query.accountId)) || (query.targetAccountId !== undefined && !isId(query.targetAccountId))) return [];
  return presentAdminReports(deps, pageAdminReports(deps.db, query, page));
}

function loadReport(deps: Deps, id: string): ReportRow {
  const row = isId(id) ? findReport(deps.db, id) : undefined;
  if (!row) throw notFound();
  return row;
}

function present(deps: Deps, row: ReportRow): AdminReport {
  const [entity] = presentAdminReports(deps, [row]);
  if (!entity) throw notFound();
  return entity;
}

/** One report, or 404. */
export function showAdminReport(deps: Deps, id: string): AdminReport {
  return present(deps, loadReport(deps, id));
}

/** Writes a change to a report's handling and answers the report as it is now. */
function change(deps: Deps, id: string, edit: (row: ReportRow) => ReportRow): AdminReport {
  const row = deps.db.transaction(() => {
    const next = { ...edit(loadReport(deps, id)), updated_at: now() };
    updateReportHandling(deps.db, next);
    return next;
  });
  // After commit: webhooks (and anything else listening) send `report.updated`.
  deps.events.emit('report.updated', { reportId: row.id });
  return present(deps, row);
}

/** What staff may change on a report (`PUT /api/v1/admin/reports/:id`). */
export interface ReportUpdate {
  category?: string | undefined;
  ruleIds?: readonly string[] | undefined;
}

/**
 * Re-classifies a report: a category among other, spam, legal and violation (422 otherwise), and
 * for a violation the rules broken, which must exist (422 "Rule ids does not reference valid
 * rules"). Rules given without a category make it a violation, as on filing; any other category
 * cites no rules.
 */
export function updateAdminReport(deps: Deps, id: string, update: ReportUpdate): AdminReport {
  const category = update.category?.trim() || undefined;
  if (category !== undefined && !(CATEGORIES as readonly string[]).includes(category)) throw unprocessable('Category is not included in the list');
  const ruleIds = update.ruleIds === undefined ? undefined : [...new Set(update.ruleIds.map((r) => r.trim()).filter(Boolean))];
  if (ruleIds !== undefined && ruleIds.length > 0 && (!ruleIds.every(isId) || countExistingRules(deps.db, ruleIds) !== ruleIds.length)) {
    throw unprocessable('Rule ids does not reference valid rules');
  }
  return change(deps, id, (row) => {
    const next = (category ?? (ruleIds && ruleIds.length > 0 ? 'violation' : row.category)) as ReportCategory;
    const rules = next === 'violation' ? (ruleIds ?? idList(row.rule_ids)) : null;
    return { ...row, category: next, rule_ids: rules === null ? null : JSON.stringify(rules) };
  });
}

/** Assigns a report to a staff member's account (already theirs: unchanged but answered). */
export function assignAdminReport(deps: Deps, id: string, accountId: string): AdminReport {
  return change(deps, id, (row) => ({ ...row, assigned_account_id: accountId }));
}

/** Leaves a report unassigned. */
export function unassignAdminReport(deps: Deps, id: string): AdminReport {
  return change(deps, id, (row) => ({ ...row, assigned_account_id: null }));
}

/**
 * Marks a report resolved by a staff member's account (or, from the CLI, by nobody in particular:
 * null). A report already resolved keeps its resolution.
 */
export function resolveAdminReport(deps: Deps, id: string, accountId: string | null): AdminReport {
  return change(deps, id, (row) => (row.action_taken_at !== null ? row : { ...row, action_taken_at: now(), action_taken_by_account_id: accountId }));
}

/** Reopens a resolved report (one still open is left as it is). */
export function reopenAdminReport(deps: Deps, id: string): AdminReport {
  return change(deps, id, (row) => ({ ...row, action_taken_at: null, action_taken_by_account_id: null }));
}
