import {
  deleteFilter as deleteFilterRow,
  deleteKeyword,
  filtersOf,
  findOwnedFilter,
  insertFilter,
  insertKeyword,
  keywordsOfFilters,
  statusesOfFilters,
  updateFilter as updateFilterRow,
  updateKeyword,
  type FilterKeywordRow,
  type FilterRow,
  type FilterStatusRow,
} from '../../db/repos/filters.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { invalidateFilterCache } from './active.js';
import { Problems } from './problems.js';
import { checkAction, checkContexts, checkExpiresIn, checkKeyword, checkTitle } from './rules.js';

/** A filter with its keywords and targeted statuses, as the filters API shows it. */
export interface FilterDetails {
  filter: FilterRow;
  keywords: FilterKeywordRow[];
  statuses: FilterStatusRow[];
}

/**
 * One entry of `keywords_attributes` (Rails nested attributes): without `id`, a new keyword; with
 * `id`, a change to that keyword of the filter, or its removal when `_destroy` is true.
 */
export interface KeywordAttributes {
  id?: string | undefined;
  keyword?: string | undefined;
  whole_word?: boolean | undefined;
  _destroy?: boolean | undefined;
}

/** Filter attributes as a client sends them; absent ones are kept (or defaulted on create). */
export interface FilterInput {
  title?: string | undefined;
  context?: readonly string[] | undefined;
  filter_action?: string | undefined;
  /** Seconds from now; null or '' for never; absent to keep. */
  expires_in?: string | number | null | undefined;
  keywords_attributes?: readonly KeywordAttributes[] | undefined;
}

/** Forgets the cached filters and tells subscribers (streaming) once, after the change committed. */
export function filtersChanged(deps: Deps, accountId: string): void {
  invalidateFilterCache(deps, accountId);
  deps.events.emit('filters.changed', { accountId });
}

function details(deps: Deps, filters: readonly FilterRow[]): FilterDetails[] {
  const ids = filters.map((f) => f.id);
  const keywords = keywordsOfFilters(deps.db, ids);
  const statuses = statusesOfFilters(deps.db, ids);
  return filters.map((filter) => ({
    filter,
    keywords: keywords.filter((k) => k.filter_id === filter.id),
    statuses: statuses.filter((s) => s.filter_id === filter.id),
  }));
}

/** Every filter of the account with its keywords and statuses (expired ones included), oldest first. */
export function listFilters(deps: Deps, accountId: string): FilterDetails[] {
  return details(deps, filtersOf(deps.db, accountId));
}

/** One of the account's filters; 404 when it does not exist or is someone else's. */
export function ownedFilter(deps: Deps, accountId: string, filterId: string): FilterRow {
  const filter = findOwnedFilter(deps.db, accountId, filterId);
  if (!filter) throw notFound();
  return filter;
}

/** One of the account's filters with its keywords and statuses. */
export function getFilter(deps: Deps, accountId: string, filterId: string): FilterDetails {
  const [one] = details(deps, [ownedFilter(deps, accountId, filterId)]);
  if (!one) throw notFound();
  return one;
}

/** The keyword changes of one request, checked, ready to write. */
interface KeywordPlan {
  insert: FilterKeywordRow[];
  update: FilterKeywordRow[];
  remove: string[];
}

/**
 * Plans `keywords_attributes` against the filter's current keywords with Rails' nested-attribute
 * rules: an `id` that is not one of this filter's keywords is 404 (on create every id is), `_destroy`
 * removes (and makes a new entry a no-op), other entries change or add keywords. Blank keywords are
 * reported on `problems`.
 */
function planKeywords(problems: Problems, filterId: string, current: readonly FilterKeywordRow[], attrs: readonly KeywordAttributes[], at: number): KeywordPlan {
  const plan: KeywordPlan = { insert: [], update: [], remove: [] };
  const byId = new Map(current.map((k) => [k.id, k]));
  for (const attr of attrs) {
    if (attr.id !== undefined && attr.id !== '') {
      const existing = byId.get(attr.id);
      if (!existing) throw notFound();
      if (attr._destroy) {
        plan.remove.push(existing.id);
        continue;
      }
      const keyword = attr.keyword ?? existing.keyword;
      checkKeyword(problems, keyword, 'keywords.keyword', 'Keywords keyword');
      const wholeWord = attr.whole_word === undefined ? existing.whole_word : attr.whole_word ? 1 : 0;
      plan.update.push({ ...existing, keyword, whole_word: wholeWord, updated_at: at });
      continue;
    }
    if (attr._destroy) continue;
    const keyword = attr.keyword ?? '';
    checkKeyword(problems, keyword, 'keywords.keyword', 'Keywords keyword');
    // A keyword matches whole words unless told otherwise (Mastodon's column default).
    plan.insert.push({ id: newId(at), filter_id: filterId, keyword, whole_word: attr.whole_word === false ? 0 : 1, created_at: at, updated_at: at });
  }
  return plan;
}

function applyKeywords(deps: Deps, plan: KeywordPlan): void {
  for (const id of plan.remove) deleteKeyword(deps.db, id);
  for (const row of plan.update) if (!plan.remove.includes(row.id)) updateKeyword(deps.db, row);
  for (const row of plan.insert) insertKeyword(deps.db, row);
}

/**
 * Creates a filter with its keywords in one transaction (POST /api/v2/filters): title and at least
 * one valid context are required; the action defaults to warn; nothing is written on any problem.
 */
export function createFilter(deps: Deps, accountId: string, input: FilterInput): FilterDetails {
  const at = now();
  const problems = new Problems();
  const title = input.title ?? '';
  checkTitle(problems, title);
  const context = checkContexts(problems, input.context ?? []);
  const action = checkAction(problems, input.filter_action ?? 'warn');
  const expiresAt = checkExpiresIn(problems, input.expires_in ?? null, at);
  const id = newId(at);
  const plan = planKeywords(problems, id, [], input.keywords_attributes ?? [], at);
  problems.throwIfAny();
  const filter: FilterRow = { id, account_id: accountId, title, context: JSON.stringify(context), filter_action: action, expires_at: expiresAt, created_at: at, updated_at: at };
  deps.db.transaction(() => {
    insertFilter(deps.db, filter);
    applyKeywords(deps, plan);
  });
  filtersChanged(deps, accountId);
  return getFilter(deps, accountId, id);
}

/**
 * Changes a filter and any number of its keywords in one transaction (PUT /api/v2/filters/:id),
 * with one filters-changed event however many keywords changed.
 */
export function updateFilter(deps: Deps, accountId: string, filterId: string, input: FilterInput): FilterDetails {
  const filter = ownedFilter(deps, accountId, filterId);
  const at = now();
  const problems = new Problems();
  const title = input.title ?? filter.title;
  checkTitle(problems, title);
  const context = input.context === undefined ? filter.context : JSON.stringify(checkContexts(problems, input.context));
  const action = input.filter_action === undefined ? filter.filter_action : checkAction(problems, input.filter_action);
  const expiresAt = input.expires_in === undefined ? filter.expires_at : checkExpiresIn(problems, input.expires_in, at);
  const plan = planKeywords(problems, filter.id, keywordsOfFilters(deps.db, [filter.id]), input.keywords_attributes ?? [], at);
  problems.throwIfAny();
  deps.db.transaction(() => {
    updateFilterRow(deps.db, { id: filter.id, title, context, filter_action: action, expires_at: expiresAt, updated_at: at });
    applyKeywords(deps, plan);
  });
  filtersChanged(deps, accountId);
  return getFilter(deps, accountId, filter.id);
}

/** Deletes one of the account's filters with its keywords and statuses. */
export function deleteFilter(deps: Deps, accountId: string, filterId: string): void {
  const filter = ownedFilter(deps, accountId, filterId);
  deleteFilterRow(deps.db, filter.id);
  filtersChanged(deps, accountId);
}
