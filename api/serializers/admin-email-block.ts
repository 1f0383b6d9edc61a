import type { CanonicalEmailBlockRow, EmailDomainBlockRow } from '../db/repos/email-blocks.js';
import { isoTime } from '../util/clock.js';

/** One day of an e-mail domain block's history (all numbers as strings, as Mastodon sends them). */
export interface EmailDomainBlockHistoryDay {
  /** Midnight UTC of the day, seconds since the epoch. */
  day: string;
  /** Distinct addresses whose sign-ups the block refused that day. */
  accounts: string;
  /** Sign-ups the block refused that day. */
  uses: string;
}

/** Mastodon's Admin::EmailDomainBlock entity. */
export interface AdminEmailDomainBlock {
  id: string;
  domain: string;
  created_at: string;
  history: EmailDomainBlockHistoryDay[];
}

/** Mastodon's Admin::CanonicalEmailBlock entity. */
export interface AdminCanonicalEmailBlock {
  id: string;
  canonical_email_hash: string;
}

/**
 * The Admin::EmailDomainBlock of a row, with its history: one entry per day of `days` (newest
 * first), its counts from `counts` by day (zero when absent).
 */
export function toMastodonAdminEmailDomainBlock(row: EmailDomainBlockRow, days: readonly number[], counts: ReadonlyMap<number, { uses: number; accounts: number }>): AdminEmailDomainBlock {
  return {
    id: row.id,
    domain: row.domain,
    created_at: isoTime(row.created_at),
    history: days.map((day) => {
      const c = counts.get(day);
      return { day: String(day), accounts: String(c?.accounts ?? 0), uses: String(c?.uses ?? 0) };
    }),
  };
}

/** The Admin::CanonicalEmailBlock of a row. */
export function toMastodonAdminCanonicalEmailBlock(row: CanonicalEmailBlockRow): AdminCanonicalEmailBlock {
  return { id: row.id, canonical_email_hash: row.canonical_email_hash };
}
