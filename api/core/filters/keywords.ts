import {
  deleteFilterStatus,
  deleteKeyword,
  filterHasStatus,
  findOwnedFilterStatus,
  findOwnedKeyword,
  insertFilterStatus,
  insertKeyword,
  keywordsOfFilters,
  statusesOfFilters,
  updateKeyword as updateKeywordRow,
  type FilterKeywordRow,
  type FilterStatusRow,
} from '../../db/repos/filters.js';
import { findStatusById } from '../../db/repos/statuses.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import { isId, newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { canViewStatus } from '../statuses/visibility.js';
import { filtersChanged, ownedFilter } from './manage.js';
import { Problems } from './problems.js';
import { checkKeyword } from './rules.js';

/** A keyword as a client sends it; absent attributes are kept (or defaulted on create). */
export interface KeywordInput {
  keyword?: string | undefined;
  whole_word?: boolean | undefined;
}

/** The keywords of one of the account's filters (404 when the filter is not theirs). */
export function filterKeywords(deps: Deps, accountId: string, filterId: string): FilterKeywordRow[] {
  return keywordsOfFilters(deps.db, [ownedFilter(deps, accountId, filterId).id]);
}

/** Adds a keyword to one of the account's filters: 404 for someone else's filter, 422 for a blank keyword. */
export function addKeyword(deps: Deps, accountId: string, filterId: string, input: KeywordInput): FilterKeywordRow {
  const filter = ownedFilter(deps, accountId, filterId);
  const keyword = input.keyword ?? '';
  const problems = new Problems();
  checkKeyword(problems, keyword);
  problems.throwIfAny();
  const at = now();
  const row: FilterKeywordRow = { id: newId(at), filter_id: filter.id, keyword, whole_word: input.whole_word === false ? 0 : 1, created_at: at, updated_at: at };
  insertKeyword(deps.db, row);
  filtersChanged(deps, accountId);
  return row;
}

/** One keyword of the account's filters; 404 otherwise. */
export function getKeyword(deps: Deps, accountId: string, keywordId: string): FilterKeywordRow {
  const row = isId(keywordId) ? findOwnedKeyword(deps.db, accountId, keywordId) : undefined;
  if (!row) throw notFound();
  return row;
}

/** Changes a keyword's text or whole-word flag. */
export function updateKeyword(deps: Deps, accountId: string, keywordId: string, input: KeywordInput): FilterKeywordRow {
  const current = getKeyword(deps, accountId, keywordId);
  const keyword = input.keyword ?? current.keyword;
  const problems = new Problems();
  checkKeyword(problems, keyword);
  problems.throwIfAny();
  const row: FilterKeywordRow = {
    ...current,
    keyword,
    whole_word: input.whole_word === undefined ? current.whole_word : input.whole_word ? 1 : 0,
    updated_at: now(),
  };
  updateKeywordRow(deps.db, row);
  filtersChanged(deps, accountId);
  return row;
}

/** Removes a keyword from its filter (the filter stays). */
export function removeKeyword(deps: Deps, accountId: string, keywordId: string): void {
  const row = getKeyword(deps, accountId, keywordId);
  deleteKeyword(deps.db, row.id);
  filtersChanged(deps, accountId);
}

/** The posts one of the account's filters targets. */
export function filterStatuses(deps: Deps, accountId: string, filterId: string): FilterStatusRow[] {
  return statusesOfFilters(deps.db, [ownedFilter(deps, accountId, filterId).id]);
}

/**
 * Makes one of the account's filters target a post: the post must exist and be visible to the
 * account, and not be targeted by that filter already (422 otherwise, nothing written).
 */
export function addFilterStatus(deps: Deps, accountId: string, filterId: string, statusId: string): FilterStatusRow {
  const filter = ownedFilter(deps, accountId, filterId);
  const status = isId(statusId) ? findStatusById(deps.db, statusId) : undefined;
  const problems = new Problems();
  if (!status) problems.add('status', 'Status', 'ERR_BLANK', 'must exist');
  else if (!canViewStatus(deps, status, accountId)) problems.add('status_id', 'Status', 'ERR_INVALID', 'is invalid');
  else if (filterHasStatus(deps.db, filter.id, status.id)) problems.add('status', 'Status', 'ERR_TAKEN', 'has already been taken');
  problems.throwIfAny();
  const at = now();
  const row: FilterStatusRow = { id: newId(at), filter_id: filter.id, status_id: statusId, created_at: at };
  insertFilterStatus(deps.db, row);
  filtersChanged(deps, accountId);
  return row;
}

/** One targeted-post entry of the account's filters; 404 otherwise. */
export function getFilterStatus(deps: Deps, accountId: string, filterStatusId: string): FilterStatusRow {
  const row = isId(filterStatusId) ? findOwnedFilterStatus(deps.db, accountId, filterStatusId) : undefined;
  if (!row) throw notFound();
  return row;
}

/** Stops a filter targeting a post. */
export function removeFilterStatus(deps: Deps, accountId: string, filterStatusId: string): void {
  const row = getFilterStatus(deps, accountId, filterStatusId);
  deleteFilterStatus(deps.db, row.id);
  filtersChanged(deps, accountId);
}
