import type { Db } from '../connection.js';

/** Where a filter applies. */
export type FilterContext = 'home' | 'notifications' | 'public' | 'thread' | 'account';
/** What a client does with a matching status. */
export type FilterAction = 'warn' | 'hide' | 'blur';

/** A row of `filters` (see 0030_lists_filters.sql); `context` is a JSON array. */
export interface FilterRow {
  id: string;
  account_id: string;
  title: string;
  context: string;
  filter_action: FilterAction;
  expires_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A row of `filter_keywords`. */
export interface FilterKeywordRow {
  id: string;
  filter_id: string;
  keyword: string;
  whole_word: number;
  created_at: number;
  updated_at: number;
}

/** A row of `filter_statuses`: a post the filter targets. */
export interface FilterStatusRow {
  id: string;
  filter_id: string;
  status_id: string;
  created_at: number;
}

const IDS = 'IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))';

/** Every filter of an account (expired ones included), oldest first. */
export function filtersOf(db: Db, accountId: string): FilterRow[] {
  return db.query<FilterRow>('SELECT * FROM filters WHERE account_id = @account_id ORDER BY id').all({ account_id: accountId });
}

/** One filter, only when `accountId` owns it. */
export function findOwnedFilter(db: Db, accountId: string, filterId: string): FilterRow | undefined {
  return db.query<FilterRow>('SELECT * FROM filters WHERE id = @id AND account_id = @account_id').get({ id: filterId, account_id: accountId });
}

/** The keywords of the given filters, oldest first. */
export function keywordsOfFilters(db: Db, filterIds: readonly string[]): FilterKeywordRow[] {
  if (filterIds.length === 0) return [];
  return db.query<FilterKeywordRow>(`SELECT * FROM filter_keywords WHERE filter_id ${IDS} ORDER BY id`).all({ ids: JSON.stringify(filterIds) });
}

/** The targeted statuses of the given filters, oldest first. */
export function statusesOfFilters(db: Db, filterIds: readonly string[]): FilterStatusRow[] {
  if (filterIds.length === 0) return [];
  return db.query<FilterStatusRow>(`SELECT * FROM filter_statuses WHERE filter_id ${IDS} ORDER BY id`).all({ ids: JSON.stringify(filterIds) });
}

/** Every keyword of an account's filters with its filter (the v1 filters listing), oldest keyword first. */
export function keywordsOfAccount(db: Db, accountId: string): FilterKeywordRow[] {
  return db
    .query<FilterKeywordRow>(
      `SELECT k.* FROM filter_keywords k JOIN filters f ON f.id = k.filter_id
       WHERE f.account_id = @account_id ORDER BY k.id`,
    )
    .all({ account_id: accountId });
}

/** One keyword, only when it belongs to a filter `accountId` owns. */
export function findOwnedKeyword(db: Db, accountId: string, keywordId: string): FilterKeywordRow | undefined {
  return db
    .query<FilterKeywordRow>(
      `SELECT k.* FROM filter_keywords k JOIN filters f ON f.id = k.filter_id
       WHERE k.id = @id AND f.account_id = @account_id`,
    )
    .get({ id: keywordId, account_id: accountId });
}

/** One targeted status entry, only when it belongs to a filter `accountId` owns. */
export function findOwnedFilterStatus(db: Db, accountId: string, filterStatusId: string): FilterStatusRow | undefined {
  return db
    .query<FilterStatusRow>(
      `SELECT fs.* FROM filter_statuses fs JOIN filters f ON f.id = fs.filter_id
       WHERE fs.id = @id AND f.account_id = @account_id`,
    )
    .get({ id: filterStatusId, account_id: accountId });
}

/** How many keywords a filter has. */
export function countKeywords(db: Db, filterId: string): number {
  return db.query<{ n: number }>('SELECT count(*) AS n FROM filter_keywords WHERE filter_id = @filter_id').get({ filter_id: filterId })?.n ?? 0;
}

/** Whether a filter already targets a status. */
export function filterHasStatus(db: Db, filterId: string, statusId: string): boolean {
  return db.query('SELECT 1 FROM filter_statuses WHERE filter_id = @filter_id AND status_id = @status_id').get({ filter_id: filterId, status_id: statusId }) !== undefined;
}

/** Inserts a filter. */
export function insertFilter(db: Db, row: FilterRow): void {
  db.query(
    `INSERT INTO filters (id, account_id, title, context, filter_action, expires_at, created_at, updated_at)
     VALUES (@id, @account_id, @title, @context, @filter_action, @expires_at, @created_at, @updated_at)`,
  ).run({ ...row });
}

/** Writes a filter's title, context, action and expiry. */
export function updateFilter(db: Db, row: Pick<FilterRow, 'id' | 'title' | 'context' | 'filter_action' | 'expires_at' | 'updated_at'>): void {
  db.query(
    `UPDATE filters SET title = @title, context = @context, filter_action = @filter_action, expires_at = @expires_at,
     updated_at = @updated_at WHERE id = @id`,
  ).run({ ...row });
}

/** Deletes a filter with its keywords and statuses. */
export function deleteFilter(db: Db, filterId: string): void {
  db.query('DELETE FROM filters WHERE id = @id').run({ id: filterId });
}

/** Inserts a keyword. */
export function insertKeyword(db: Db, row: FilterKeywordRow): void {
  db.query(
    `INSERT INTO filter_keywords (id, filter_id, keyword, whole_word, created_at, updated_at)
     VALUES (@id, @filter_id, @keyword, @whole_word, @created_at, @updated_at)`,
  ).run({ ...row });
}

/** Writes a keyword's text and whole-word flag. */
export function updateKeyword(db: Db, row: Pick<FilterKeywordRow, 'id' | 'keyword' | 'whole_word' | 'updated_at'>): void {
  db.query('UPDATE filter_keywords SET keyword = @keyword, whole_word = @whole_word, updated_at = @updated_at WHERE id = @id').run({ ...row });
}

/** Deletes a keyword. */
export function deleteKeyword(db: Db, keywordId: string): void {
  db.query('DELETE FROM filter_keywords WHERE id = @id').run({ id: keywordId });
}

/** Inserts a targeted status. */
export function insertFilterStatus(db: Db, row: FilterStatusRow): void {
  db.query('INSERT INTO filter_statuses (id, filter_id, status_id, created_at) VALUES (@id, @filter_id, @status_id, @created_at)').run({ ...row });
}

/** Deletes a targeted status entry. */
export function deleteFilterStatus(db: Db, filterStatusId: string): void {
  db.query('DELETE FROM filter_statuses WHERE id = @id').run({ id: filterStatusId });
}

/** The texts a filter matches against, for one status (its own, never a reblog wrapper's). */
export interface FilterTextSource {
  id: string;
  account_id: string;
  reblog_of_id: string | null;
  local: number;
  text: string;
  content: string;
  spoiler_text: string;
  /** JSON array of poll option titles, or null. */
  poll_options: string | null;
  /** Media descriptions joined by blank lines, or null. */
  media_text: string | null;
}

/** The matchable texts of a batch of statuses, in one query. */
export function filterTextSources(db: Db, statusIds: readonly string[]): FilterTextSource[] {
  if (statusIds.length === 0) return [];
  return db
    .query<FilterTextSource>(
      `SELECT s.id, s.account_id, s.reblog_of_id, s.local, s.text, s.content, s.spoiler_text,
         (SELECT options FROM polls WHERE status_id = s.id) AS poll_options,
         (SELECT group_concat(description, char(10) || char(10)) FROM
           (SELECT description FROM media_attachments WHERE status_id = s.id AND description IS NOT NULL ORDER BY position)) AS media_text
       FROM statuses s WHERE s.id ${IDS}`,
    )
    .all({ ids: JSON.stringify([...new Set(statusIds)]) });
}
