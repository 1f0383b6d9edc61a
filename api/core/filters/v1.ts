import {
  countKeywords,
  deleteKeyword,
  filtersOf,
  insertFilter,
  insertKeyword,
  keywordsOfAccount,
  updateFilter,
  updateKeyword,
  type FilterKeywordRow,
  type FilterRow,
} from '../../db/repos/filters.js';
import { now } from '../../util/clock.js';
import { ApiError } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { getKeyword } from './keywords.js';
import { filtersChanged, ownedFilter } from './manage.js';
import { Problems } from './problems.js';
import { checkContexts, checkExpiresIn, checkTitle } from './rules.js';

/**
 * v1 filters, as Mastodon 4 keeps them: views over v2 filters, one per keyword. A v1 filter's id is
 * its keyword's id, `phrase` the keyword, `irreversible` the filter's `hide` action. Creating one
 * makes a filter titled after the phrase with that one keyword; deleting one removes only the keyword.
 */

/** A v1 filter: a keyword and the filter it belongs to. */
export interface V1Filter {
  keyword: FilterKeywordRow;
  filter: FilterRow;
}

/** v1 filter attributes as a client sends them; absent ones are kept (or defaulted on create). */
export interface V1FilterInput {
  phrase?: string | undefined;
  context?: readonly string[] | undefined;
  irreversible?: boolean | undefined;
  whole_word?: boolean | undefined;
  /** Seconds from now; null or '' for never; absent to keep. */
  expires_in?: string | number | null | undefined;
}

/** Mastodon's answer when a v1 edit would change settings several keywords share. */
export const MULTIPLE_KEYWORDS_ERROR =
  'These parameters cannot be changed from this application because they apply to more than one filter keyword. Use a more recent application or the web interface.';

/** Every keyword of the account's filters as v1 filters, oldest first (expired filters included). */
export function listV1Filters(deps: Deps, accountId: string): V1Filter[] {
  const filters = new Map(filtersOf(deps.db, accountId).map((f) => [f.id, f]));
  return keywordsOfAccount(deps.db, accountId).flatMap((keyword) => {
    const filter = filters.get(keyword.filter_id);
    return filter ? [{ keyword, filter }] : [];
  });
}

/** One v1 filter by its keyword id; 404 when it is not the account's. */
export function getV1Filter(deps: Deps, accountId: string, keywordId: string): V1Filter {
  const keyword = getKeyword(deps, accountId, keywordId);
  const filter = ownedFilter(deps, accountId, keyword.filter_id);
  return { keyword, filter };
}

function checkPhrase(problems: Problems, phrase: string): void {
  checkTitle(problems, phrase, 'phrase', 'Phrase');
}

/**
 * Creates a v1 filter: a filter titled `phrase` with that one keyword, hiding when irreversible,
 * matching whole words only when asked (v1's documented default is false).
 */
export function createV1Filter(deps: Deps, accountId: string, input: V1FilterInput): V1Filter {
  const at = now();
  const problems = new Problems();
  const phrase = input.phrase ?? '';
  checkPhrase(problems, phrase);
  const context = checkContexts(problems, input.context ?? []);
  const expiresAt = checkExpiresIn(problems, input.expires_in ?? null, at);
  problems.throwIfAny();
  const filter: FilterRow = {
    id: newId(at),
    account_id: accountId,
    title: phrase,
    context: JSON.stringify(context),
    filter_action: input.irreversible ? 'hide' : 'warn',
    expires_at: expiresAt,
    created_at: at,
    updated_at: at,
  };
  const keyword: FilterKeywordRow = { id: newId(at), filter_id: filter.id, keyword: phrase, whole_word: input.whole_word ? 1 : 0, created_at: at, updated_at: at };
  deps.db.transaction(() => {
    insertFilter(deps.db, filter);
    insertKeyword(deps.db, keyword);
  });
  filtersChanged(deps, accountId);
  return { keyword, filter };
}

/**
 * Changes a v1 filter. Phrase and whole_word change the keyword (and, for a one-keyword filter,
 * the title with it); context, irreversible and expiry belong to the filter, so changing them on
 * a filter of several keywords is refused as Mastodon refuses it.
 */
export function updateV1Filter(deps: Deps, accountId: string, keywordId: string, input: V1FilterInput): V1Filter {
  const current = getV1Filter(deps, accountId, keywordId);
  const at = now();
  const problems = new Problems();
  const phrase = input.phrase ?? current.keyword.keyword;
  checkPhrase(problems, phrase);
  const context = input.context === undefined ? current.filter.context : JSON.stringify(checkContexts(problems, input.context));
  const action = input.irreversible === undefined ? current.filter.filter_action : input.irreversible ? 'hide' : 'warn';
  const expiresAt = input.expires_in === undefined ? current.filter.expires_at : checkExpiresIn(problems, input.expires_in, at);
  problems.throwIfAny();

  const keyword: FilterKeywordRow = {
    ...current.keyword,
    keyword: phrase,
    whole_word: input.whole_word === undefined ? current.keyword.whole_word : input.whole_word ? 1 : 0,
    updated_at: at,
  };
  const filterChanged = context !== current.filter.context || action !== current.filter.filter_action || expiresAt !== current.filter.expires_at;
  const filter = deps.db.transaction(() => {
    const shared = countKeywords(deps.db, current.filter.id) > 1;
    if (filterChanged && shared) throw new ApiError(422, MULTIPLE_KEYWORDS_ERROR);
    // A one-keyword filter is what v1 created: its title follows its phrase.
    const title = shared ? current.filter.title : phrase;
    const next: FilterRow = { ...current.filter, title, context, filter_action: action, expires_at: expiresAt, updated_at: at };
    updateKeyword(deps.db, keyword);
    updateFilter(deps.db, next);
    return next;
  });
  filtersChanged(deps, accountId);
  return { keyword, filter };
}

/** Deletes a v1 filter: its keyword only; the filter it belonged to stays (the v2 API deletes filters). */
export function deleteV1Filter(deps: Deps, accountId: string, keywordId: string): void {
  const current = getV1Filter(deps, accountId, keywordId);
  deleteKeyword(deps.db, current.keyword.id);
  filtersChanged(deps, accountId);
}
