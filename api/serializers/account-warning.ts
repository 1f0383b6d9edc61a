import type { AccountWarningRow } from '../db/repos/admin-accounts.js';
import { isoTime } from '../util/clock.js';
import type { Account } from './account.js';

/** Mastodon's AccountWarning entity (4.3): a moderation decision shown to the account it is about. */
export interface MastodonAccountWarning {
  id: string;
  /** none, disable, mark_statuses_as_sensitive, delete_statuses, sensitive, silence, suspend (Hearth takes the account-wide ones). */
  action: string;
  text: string;
  status_ids: string[] | null;
  target_account: Account;
  /** Hearth takes no appeals: always null. */
  appeal: null;
  created_at: string;
}

/** The AccountWarning of a warning row, with its loaded target account. */
export function toMastodonAccountWarning(row: AccountWarningRow, target: Account): MastodonAccountWarning {
  const ids: unknown = row.status_ids === null ? null : JSON.parse(row.status_ids);
  return {
    id: row.id,
    action: row.action,
    text: row.text,
    status_ids: Array.isArray(ids) ? ids.map(String) : null,
    target_account: target,
    appeal: null,
    created_at: isoTime(row.created_at),
  };
}
