import type { Db } from '../connection.js';

/** Where a quote's approval stands (see 0081_quotes.sql). */
export type QuoteState = 'pending' | 'accepted' | 'rejected' | 'revoked';

/** A row of `quotes`: a status quoting another. */
export interface QuoteRow {
  id: string;
  status_id: string;
  account_id: string;
  quoted_status_id: string | null;
  quoted_account_id: string | null;
  quoted_uri: string | null;
  state: QuoteState;
  legacy: number;
  approval_uri: string | null;
  activity_uri: string | null;
  created_at: number;
  updated_at: number;
}

/** Who may quote a status: automatic and manual approval flags (see 0081_quotes.sql). */
export interface QuotePolicyFlags {
  automatic: number;
  manual: number;
}

const IDS = '(SELECT CAST(value AS INTEGER) FROM json_each(@ids))';

/** Inserts a quote row. */
export function insertQuote(db: Db, row: QuoteRow): void {
  db.query(
    `INSERT INTO quotes (id, status_id, account_id, quoted_status_id, quoted_account_id, quoted_uri, state, legacy, approval_uri, activity_uri, created_at, updated_at)
     VALUES (@id, @status_id, @account_id, @quoted_status_id, @quoted_account_id, @quoted_uri, @state, @legacy, @approval_uri, @activity_uri, @created_at, @updated_at)`,
  ).run({ ...row });
}

/** Changes some columns of one quote (and its updated_at). */
export function updateQuote(db: Db, id: string, changes: Partial<Pick<QuoteRow, 'quoted_status_id' | 'quoted_account_id' | 'state' | 'approval_uri' | 'activity_uri'>>, at: number): void {
  const keys = Object.keys(changes).filter((k) => changes[k as keyof typeof changes] !== undefined);
  db.query(`UPDATE quotes SET ${[...keys.map((k) => `${k} = @${k}`), 'updated_at = @at'].join(', ')} WHERE id = @id`).run({
    ...Object.fromEntries(keys.map((k) => [k, changes[k as keyof typeof changes] ?? null])),
    at,
    id,
  });
}

/** Removes the quote of a status (its quote was edited away). */
export function deleteQuoteOfStatus(db: Db, statusId: string): void {
  db.query('DELETE FROM quotes WHERE status_id = @status_id').run({ status_id: statusId });
}

/** One quote by id. */
export function findQuoteById(db: Db, id: string): QuoteRow | undefined {
  return db.query<QuoteRow>('SELECT * FROM quotes WHERE id = @id').get({ id });
}

/** The quote a status makes, if any. */
export function findQuoteOfStatus(db: Db, statusId: string): QuoteRow | undefined {
  return db.query<QuoteRow>('SELECT * FROM quotes WHERE status_id = @status_id').get({ status_id: statusId });
}

/** The quotes a batch of statuses make, keyed by quoting status id. */
export function findQuotesByStatusIds(db: Db, statusIds: readonly string[]): Map<string, QuoteRow> {
  const out = new Map<string, QuoteRow>();
  if (statusIds.length === 0) return out;
  for (const row of db.query<QuoteRow>(`SELECT * FROM quotes WHERE status_id IN ${IDS}`).all({ ids: JSON.stringify([...new Set(statusIds)]) })) {
    out.set(row.status_id, row);
  }
  return out;
}

/** The quote that a QuoteRequest with this id asked for. */
export function findQuoteByActivityUri(db: Db, activityUri: string): QuoteRow | undefined {
  return db.query<QuoteRow>('SELECT * FROM quotes WHERE activity_uri = @uri').get({ uri: activityUri });
}

/** The pending or accepted quote that an authorization, issued by `quotedAccountId`, approved. */
export function findQuoteByApprovalUri(db: Db, approvalUri: string, quotedAccountId: string): QuoteRow | undefined {
  return db
    .query<QuoteRow>("SELECT * FROM quotes WHERE approval_uri = @uri AND quoted_account_id = @quoted_account_id AND state IN ('pending', 'accepted')")
    .get({ uri: approvalUri, quoted_account_id: quotedAccountId });
}

/** Quotes that name a status by its URI before it was known here. */
export function findQuotesWaitingFor(db: Db, uri: string): QuoteRow[] {
  return db.query<QuoteRow>('SELECT * FROM quotes WHERE quoted_status_id IS NULL AND quoted_uri = @uri').all({ uri });
}

/** The accepted quotes of a status made by local accounts other than `exceptAccountId`. */
export function localAcceptedQuotesOf(db: Db, quotedStatusId: string, exceptAccountId: string): QuoteRow[] {
  return db
    .query<QuoteRow>(
      `SELECT q.* FROM quotes q JOIN accounts a ON a.id = q.account_id
       WHERE q.quoted_status_id = @quoted_status_id AND q.state = 'accepted' AND q.account_id != @account_id AND a.domain IS NULL`,
    )
    .all({ quoted_status_id: quotedStatusId, account_id: exceptAccountId });
}

/**
 * One page of the accepted quotes of a status, newest first, by quote id: `maxId` and `sinceId`
 * are quote ids (the cursors of the quotes listing).
 */
export function acceptedQuotesPage(db: Db, quotedStatusId: string, page: { maxId?: string | undefined; sinceId?: string | undefined; limit: number }): QuoteRow[] {
  return db
    .query<QuoteRow>(
      `SELECT * FROM quotes WHERE quoted_status_id = @quoted_status_id AND state = 'accepted'
         AND (@max_id IS NULL OR id < @max_id) AND (@since_id IS NULL OR id > @since_id)
       ORDER BY id DESC LIMIT @limit`,
    )
    .all({ quoted_status_id: quotedStatusId, max_id: page.maxId ?? null, since_id: page.sinceId ?? null, limit: page.limit });
}

/** What the Status entity needs of each of a batch of statuses: its quote policy and accepted quotes. */
export interface QuoteStats {
  policy: QuotePolicyFlags;
  quotes: number;
}

/** The quote policy and count of accepted quotes of each of a batch of statuses, in one query. */
export function findQuoteStats(db: Db, statusIds: readonly string[]): Map<string, QuoteStats> {
  const out = new Map<string, QuoteStats>();
  if (statusIds.length === 0) return out;
  const rows = db
    .query<{ status_id: string; automatic: number | null; manual: number | null; quotes: number }>(
      `WITH ids (status_id) AS ${IDS}
       SELECT ids.status_id, p.automatic, p.manual,
         (SELECT count(*) FROM quotes q WHERE q.quoted_status_id = ids.status_id AND q.state = 'accepted') AS quotes
       FROM ids LEFT JOIN status_quote_policies p ON p.status_id = ids.status_id`,
    )
    .all({ ids: JSON.stringify([...new Set(statusIds)]) });
  for (const r of rows) out.set(r.status_id, { policy: { automatic: r.automatic ?? 0, manual: r.manual ?? 0 }, quotes: r.quotes });
  return out;
}

/** The quote policies of a batch of statuses (absent: nobody but the author). */
export function findQuotePolicies(db: Db, statusIds: readonly string[]): Map<string, QuotePolicyFlags> {
  const out = new Map<string, QuotePolicyFlags>();
  if (statusIds.length === 0) return out;
  const rows = db
    .query<{ status_id: string; automatic: number; manual: number }>(`SELECT * FROM status_quote_policies WHERE status_id IN ${IDS}`)
    .all({ ids: JSON.stringify([...new Set(statusIds)]) });
  for (const r of rows) out.set(r.status_id, { automatic: r.automatic, manual: r.manual });
  return out;
}

/** Sets a status's quote policy; no flags at all removes the row (nobody, the default). */
export function setQuotePolicy(db: Db, statusId: string, flags: QuotePolicyFlags): void {
  if (flags.automatic === 0 && flags.manual === 0) {
    db.query('DELETE FROM status_quote_policies WHERE status_id = @status_id').run({ status_id: statusId });
    return;
  }
  db.query(
    `INSERT INTO status_quote_policies (status_id, automatic, manual) VALUES (@status_id, @automatic, @manual)
     ON CONFLICT (status_id) DO UPDATE SET automatic = excluded.automatic, manual = excluded.manual`,
  ).run({ status_id: statusId, automatic: flags.automatic, manual: flags.manual });
}

/** Of `accountIds`, those the viewer follows, and those that follow the viewer. */
export function followsAround(db: Db, viewerId: string, accountIds: readonly string[]): { following: Set<string>; followedBy: Set<string> } {
  const ids = JSON.stringify([...new Set(accountIds)]);
  const following = db
    .query<{ target_account_id: string }>(`SELECT target_account_id FROM follows WHERE account_id = @viewer_id AND target_account_id IN ${IDS}`)
    .all({ viewer_id: viewerId, ids });
  const followedBy = db.query<{ account_id: string }>(`SELECT account_id FROM follows WHERE target_account_id = @viewer_id AND account_id IN ${IDS}`).all({ viewer_id: viewerId, ids });
  return { following: new Set(following.map((r) => r.target_account_id)), followedBy: new Set(followedBy.map((r) => r.account_id)) };
}

/** How the viewer relates to the author of a quoted status (for the Quote entity's state). */
export interface QuotedAuthorFilter {
  account_id: string;
  blocked: number;
  domain_blocked: number;
  muted: number;
}

/**
 * For each of a batch of statuses: its author, and whether the viewer blocks that author, blocks
 * the author's domain, or mutes the author (an active mute), in one query.
 */
export function quotedAuthorFilters(db: Db, viewerId: string, statusIds: readonly string[]): Map<string, QuotedAuthorFilter> {
  const out = new Map<string, QuotedAuthorFilter>();
  if (statusIds.length === 0) return out;
  const rows = db
    .query<QuotedAuthorFilter & { id: string }>(
      `SELECT s.id, s.account_id,
         EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = @viewer_id AND b.target_account_id = s.account_id) AS blocked,
         (a.domain IS NOT NULL AND EXISTS (SELECT 1 FROM account_domain_blocks d WHERE d.account_id = @viewer_id AND d.domain = a.domain)) AS domain_blocked,
         EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = @viewer_id AND m.target_account_id = s.account_id
                 AND (m.expires_at IS NULL OR m.expires_at > CAST(unixepoch('subsec') * 1000 AS INTEGER))) AS muted
       FROM statuses s JOIN accounts a ON a.id = s.account_id
       WHERE s.id IN ${IDS}`,
    )
    .all({ viewer_id: viewerId, ids: JSON.stringify([...new Set(statusIds)]) });
  for (const r of rows) out.set(r.id, { account_id: r.account_id, blocked: r.blocked, domain_blocked: r.domain_blocked, muted: r.muted });
  return out;
}
