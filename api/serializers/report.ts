import type { ReportCategory, ReportRow } from '../db/repos/reports.js';
import { isoTime } from '../util/clock.js';
import type { Account } from './account.js';

/** Mastodon's Report entity, as the reporter sees it. */
export interface MastodonReport {
  id: string;
  action_taken: boolean;
  action_taken_at: string | null;
  category: ReportCategory;
  comment: string;
  /** Whether the report was forwarded to the reported account's server. */
  forwarded: boolean;
  created_at: string;
  status_ids: string[];
  /** Featured collections attached to the report; this instance has none to attach. */
  collection_ids: string[];
  /** Null unless the category is violation. */
  rule_ids: string[] | null;
  target_account: Account;
}

function idList(json: string | null): string[] | null {
  if (json === null) return null;
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.map(String) : [];
}

/** The Report entity of a row, with the reported account's entity loaded by core. */
export function toMastodonReport(row: ReportRow, targetAccount: Account): MastodonReport {
  return {
    id: row.id,
    action_taken: row.action_taken_at !== null,
    action_taken_at: row.action_taken_at === null ? null : isoTime(row.action_taken_at),
    category: row.category,
    comment: row.comment,
    forwarded: row.forwarded === 1,
    created_at: isoTime(row.created_at),
    status_ids: idList(row.status_ids) ?? [],
    collection_ids: [],
    rule_ids: idList(row.rule_ids),
    target_account: targetAccount,
  };
}
