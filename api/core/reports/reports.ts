import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import {
  countExistingRules,
  findReportsByIds,
  hasUnresolvedSiblings,
  insertReport,
  statusIdsOfAccount,
  type ReportCategory,
  type ReportRow,
} from '../../db/repos/reports.js';
import { findUserByAccountId } from '../../db/repos/users.js';
import { toMastodonAccount } from '../../serializers/account.js';
import { toMastodonReport, type MastodonReport } from '../../serializers/report.js';
import { now } from '../../util/clock.js';
import { notFound, unprocessable } from '../../util/errors.js';
import { isId, newId } from '../../util/ids.js';
import { loadAccountViews } from '../accounts/views.js';
import { PERMISSION } from '../../util/permissions.js';
import type { Deps } from '../deps.js';
import { accountIdsWithPermission } from '../roles/access.js';
import { visibleStatusIds } from '../statuses/visibility.js';

/**
 * Reports: a user tells the staff about an account and, optionally, some of its statuses. The
 * staff hear of it through an `admin.report` notification (see `staffToNotifyOfReport`); the
 * admin side handles reports later.
 */

/** Longest report comment (Mastodon's default). */
export const REPORT_COMMENT_MAX = 1000;
const CATEGORIES: readonly ReportCategory[] = ['other', 'spam', 'legal', 'violation'];

/** What a reporter gives, as `POST /api/v1/reports` takes it. */
export interface ReportInput {
  /** The reported account. */
  accountId: string;
  statusIds: readonly string[];
  comment: string | undefined;
  category: string | undefined;
  ruleIds: readonly string[];
  /** Forward to the reported account's server; kept only for remote accounts. */
  forward: boolean;
}

function isCategory(value: string): value is ReportCategory {
  return (CATEGORIES as readonly string[]).includes(value);
}

/**
 * The reported account: 404 when unknown, or a local sign-up still waiting for approval (which
 * does not exist yet as far as others can tell).
 */
function reportedAccount(deps: Deps, accountId: string): AccountRow {
  const target = isId(accountId) ? findAccountById(deps.db, accountId) : undefined;
  if (!target) throw notFound();
  if (target.domain === null && findUserByAccountId(deps.db, target.id)?.approved === 0) throw notFound();
  return target;
}

/**
 * Files a report, as Mastodon's ReportService does, validating everything before writing:
 * - rule ids make the category `violation` whatever was asked; otherwise the category defaults to
 *   `other`, and an unknown one is a 422;
 * - a `violation` report must cite existing rules (422 otherwise);
 * - the comment is at most 1000 characters (422);
 * - every status must be the reported account's and visible to the reporter (404 otherwise);
 * - `forward` is kept only when the reported account is remote.
 * Emits `report.created` after the write.
 */
export function createReport(deps: Deps, reporter: AccountRow, input: ReportInput): MastodonReport {
  const target = reportedAccount(deps, input.accountId);
  const comment = input.comment ?? '';
  if ([...comment].length > REPORT_COMMENT_MAX) throw unprocessable(`Comment is too long (maximum is ${REPORT_COMMENT_MAX} characters)`);

  const ruleIds = [...new Set(input.ruleIds.map((id) => id.trim()).filter(Boolean))];
  const category = ruleIds.length > 0 ? 'violation' : (input.category?.trim() || 'other');
  if (!isCategory(category)) throw unprocessable('Category is not included in the list');
  if (category === 'violation' && (ruleIds.length === 0 || !ruleIds.every(isId) || countExistingRules(deps.db, ruleIds) !== ruleIds.length)) {
    throw unprocessable('Rule ids does not reference valid rules');
  }

  const statusIds = [...new Set(input.statusIds.map((id) => id.trim()).filter(Boolean))];
  if (!statusIds.every(isId)) throw notFound();
  const theirs = statusIdsOfAccount(deps.db, target.id, statusIds);
  const visible = visibleStatusIds(deps, statusIds, reporter.id);
  // Someone else's status, or one the reporter cannot see, cannot be attached: Mastodon looks
  // statuses up among the reported account's statuses visible to the reporter, and answers 404.
  if (!statusIds.every((id) => theirs.has(id) && visible.has(id))) throw notFound();

  const at = now();
  const row: ReportRow = {
    id: newId(at),
    account_id: reporter.id,
    target_account_id: target.id,
    status_ids: JSON.stringify(statusIds),
    rule_ids: category === 'violation' ? JSON.stringify(ruleIds) : null,
    comment,
    category,
    forwarded: input.forward && target.domain !== null ? 1 : 0,
    uri: null,
    assigned_account_id: null,
    action_taken_at: null,
    action_taken_by_account_id: null,
    created_at: at,
    updated_at: at,
  };
  deps.db.transaction(() => insertReport(deps.db, row));
  deps.events.emit('report.created', { reportId: row.id, accountId: reporter.id, targetAccountId: target.id });
  return presentReports(deps, [row.id]).get(row.id) as MastodonReport;
}

/** Report entities by id (for the reporter's answer and `admin.report` notifications); unknown ids are left out. */
export function presentReports(deps: Deps, reportIds: readonly string[]): Map<string, MastodonReport> {
  const rows = findReportsByIds(deps.db, reportIds);
  const views = loadAccountViews(deps, [...rows.values()].map((r) => r.target_account_id));
  const out = new Map<string, MastodonReport>();
  for (const row of rows.values()) {
    const view = views.get(row.target_account_id);
    if (view) out.set(row.id, toMastodonReport(row, toMastodonAccount(view, deps.uris)));
  }
  return out;
}

/**
 * The staff accounts to notify (`admin.report`) of a new report: every user whose role may manage
 * reports (custom roles included) with an enabled login, as Mastodon notifies them. Nobody when another
 * report about the same account is still open: the staff already have it in front of them.
 */
export function staffToNotifyOfReport(deps: Deps, reportId: string): string[] {
  const report = findReportsByIds(deps.db, [reportId]).get(reportId);
  if (!report || hasUnresolvedSiblings(deps.db, report)) return [];
  return accountIdsWithPermission(deps, PERMISSION.manageReports);
}
