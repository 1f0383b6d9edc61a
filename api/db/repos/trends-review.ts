import type { Db } from '../connection.js';
import type { PageSql } from '../paging.js';

/** Staff's verdict on something that may trend: null unreviewed, 1 approved, 0 rejected. */
export type Verdict = 0 | 1 | null;

/** A row of `preview_card_providers` (a link publisher). */
export interface ProviderRow {
  id: string;
  domain: string;
  trendable: Verdict;
  reviewed_at: number | null;
  requested_review_at: number | null;
  created_at: number;
  updated_at: number;
}

/** The review state of a hashtag. */
export interface TagReview {
  id: string;
  trendable: Verdict;
  usable: number;
  reviewed_at: number | null;
}

const IDS = 'SELECT CAST(value AS INTEGER) FROM json_each(?)';

/** The review state of tags by id (unknown ids left out). */
export function tagReviews(db: Db, ids: readonly string[]): Map<string, TagReview> {
  if (ids.length === 0) return new Map();
  const rows = db.query<TagReview>(`SELECT id, trendable, usable, reviewed_at FROM tags WHERE id IN (${IDS})`).all(JSON.stringify([...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r]));
}

/** The verdicts on statuses by id (unknown ids left out). */
export function statusVerdicts(db: Db, ids: readonly string[]): Map<string, Verdict> {
  if (ids.length === 0) return new Map();
  const rows = db.query<{ id: string; trendable: Verdict }>(`SELECT id, trendable FROM statuses WHERE id IN (${IDS})`).all(JSON.stringify([...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r.trendable]));
}

/** The verdicts on link cards by id, with their URL (unknown ids left out). */
export function cardVerdicts(db: Db, ids: readonly string[]): Map<string, { url: string; trendable: Verdict }> {
  if (ids.length === 0) return new Map();
  const rows = db.query<{ id: string; url: string; trendable: Verdict }>(`SELECT id, url, trendable FROM preview_cards WHERE id IN (${IDS})`).all(JSON.stringify([...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, { url: r.url, trendable: r.trendable }]));
}

/** Sets a tag's verdict; false when there is no such tag. */
export function setTagVerdict(db: Db, id: string, trendable: 0 | 1, at: number): boolean {
  return db.query('UPDATE tags SET trendable = @trendable, reviewed_at = @at WHERE id = @id').run({ id, trendable, at }).changes > 0;
}

/** Sets a status's verdict; false when there is no such status. */
export function setStatusVerdict(db: Db, id: string, trendable: 0 | 1): boolean {
  return db.query('UPDATE statuses SET trendable = @trendable WHERE id = @id').run({ id, trendable }).changes > 0;
}

/** Sets a link card's verdict; false when there is no such card. */
export function setCardVerdict(db: Db, id: string, trendable: 0 | 1): boolean {
  return db.query('UPDATE preview_cards SET trendable = @trendable WHERE id = @id').run({ id, trendable }).changes > 0;
}

/** Sets a publisher's verdict; false when there is no such publisher. */
export function setProviderVerdict(db: Db, id: string, trendable: 0 | 1, at: number): boolean {
  return db.query('UPDATE preview_card_providers SET trendable = @trendable, reviewed_at = @at, updated_at = @at WHERE id = @id').run({ id, trendable, at }).changes > 0;
}

/** Publishers by domain (unknown domains left out). */
export function providersByDomains(db: Db, domains: readonly string[]): Map<string, ProviderRow> {
  if (domains.length === 0) return new Map();
  const rows = db.query<ProviderRow>('SELECT * FROM preview_card_providers WHERE domain IN (SELECT value FROM json_each(?))').all(JSON.stringify([...new Set(domains)]));
  return new Map(rows.map((r) => [r.domain, r]));
}

/** A publisher by id. */
export function findProvider(db: Db, id: string): ProviderRow | undefined {
  return db.query<ProviderRow>('SELECT * FROM preview_card_providers WHERE id = ?').get(id);
}

/** Adds the publishers not known yet, their review requested now (rows made with the given ids). */
export function insertProviders(db: Db, rows: readonly { id: string; domain: string }[], at: number): void {
  const insert = db.query(
    `INSERT INTO preview_card_providers (id, domain, requested_review_at, created_at, updated_at) VALUES (@id, @domain, @at, @at, @at)
     ON CONFLICT (domain) DO NOTHING`,
  );
  for (const row of rows) insert.run({ id: row.id, domain: row.domain, at });
}

/** A page of publishers, newest first (keyset paging by id). */
export function providersPage(db: Db, page: PageSql): ProviderRow[] {
  return db.query<ProviderRow>(`SELECT * FROM preview_card_providers WHERE 1 = 1 ${page.where} ${page.orderLimit}`).all({ ...page.params });
}
