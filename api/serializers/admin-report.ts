import type { ReportCategory, ReportRow } from '../db/repos/reports.js';
import { isoTime } from '../util/clock.js';
import type { AdminAccount } from './admin-account.js';
import type { Rule } from './rule.js';
import type { MastodonStatus } from './status.js';

/** Mastodon's Admin::Report entity, as staff see a report. */
export interface AdminReport {
  id: string;
  action_taken: boolean;
  action_taken_at: string | null;
  category: ReportCategory;
  comment: string;
  forwarded: boolean;
  created_at: string;
  updated_at: string;
  /** Who filed it (for a report from another server, that server's actor). */
  account: AdminAccount;
  target_account: AdminAccount;
  assigned_account: AdminAccount | null;
  action_taken_by_account: AdminAccount | null;
  /** The attached statuses that still exist. */
  statuses: MastodonStatus[];
  /** The rules it cites. */
  rules: Rule[];
}

/** What core loads for one report's entity. */
export interface AdminReportParts {
  account: AdminAccount;
  targetAccount: AdminAccount;
  assignedAccount: AdminAccount | null;
  actionTakenByAccount: AdminAccount | null;
  statuses: MastodonStatus[];
  rules: Rule[];
}

/** The Admin::Report of a row, with its accounts, statuses and rules loaded by core. */
export function toMastodonAdminReport(row: ReportRow, parts: AdminReportParts): AdminReport {
  return {
    id: row.id,
    action_taken: row.action_taken_at !== null,
    action_taken_at: row.action_taken_at === null ? null : isoTime(row.action_taken_at),
    category: row.category,
    comment: row.comment,
    forwarded: row.forwarded === 1,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    account: parts.account,
    target_account: parts.targetAccount,
    assigned_account: parts.assignedAccount,
    action_taken_by_account: parts.actionTakenByAccount,
    statuses: parts.statuses,
    rules: parts.rules,
  };
}
