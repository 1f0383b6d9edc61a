import type { FilterAction, FilterContext, FilterKeywordRow, FilterRow, FilterStatusRow } from '../db/repos/filters.js';
import { isoTime } from '../util/clock.js';

export type { FilterAction, FilterContext } from '../db/repos/filters.js';

/** Mastodon's FilterKeyword entity. */
export interface MastodonFilterKeyword {
  id: string;
  keyword: string;
  whole_word: boolean;
}

/** Mastodon's FilterStatus entity: one post the filter targets. */
export interface MastodonFilterStatus {
  id: string;
  status_id: string;
}

/** Mastodon's Filter entity (v2); keywords and statuses are left out inside a FilterResult. */
export interface MastodonFilter {
  id: string;
  title: string;
  context: FilterContext[];
  expires_at: string | null;
  filter_action: FilterAction;
  keywords?: MastodonFilterKeyword[];
  statuses?: MastodonFilterStatus[];
}

/** Mastodon's FilterResult entity: a filter that matched a status, and what matched. */
export interface MastodonFilterResult {
  filter: MastodonFilter;
  keyword_matches: string[] | null;
  status_matches: string[] | null;
}

/** Mastodon's V1::Filter entity: one keyword of a filter, with its filter's settings. */
export interface MastodonV1Filter {
  id: string;
  phrase: string;
  context: FilterContext[];
  whole_word: boolean;
  expires_at: string | null;
  irreversible: boolean;
}

/** The contexts stored on a filter row (a JSON array). */
export function filterContexts(row: Pick<FilterRow, 'context'>): FilterContext[] {
  try {
    const value: unknown = JSON.parse(row.context);
    return Array.isArray(value) ? value.filter((v): v is FilterContext => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/** The FilterKeyword entity. */
export function toMastodonFilterKeyword(row: FilterKeywordRow): MastodonFilterKeyword {
  return { id: row.id, keyword: row.keyword, whole_word: row.whole_word === 1 };
}

/** The FilterStatus entity. */
export function toMastodonFilterStatus(row: FilterStatusRow): MastodonFilterStatus {
  return { id: row.id, status_id: row.status_id };
}

/**
 * The Filter entity. With `rules` (the filters API), its keywords and statuses are included;
 * without (inside a FilterResult), they are omitted as Mastodon does.
 */
export function toMastodonFilter(row: FilterRow, rules?: { keywords: readonly FilterKeywordRow[]; statuses: readonly FilterStatusRow[] }): MastodonFilter {
  const out: MastodonFilter = {
    id: row.id,
    title: row.title,
    context: filterContexts(row),
    expires_at: row.expires_at === null ? null : isoTime(row.expires_at),
    filter_action: row.filter_action,
  };
  if (rules) {
    out.keywords = rules.keywords.map(toMastodonFilterKeyword);
    out.statuses = rules.statuses.map(toMastodonFilterStatus);
  }
  return out;
}

/** The FilterResult entity; matches are null when that kind did not match. */
export function toMastodonFilterResult(filter: MastodonFilter, keywordMatches: string[] | null, statusMatches: string[] | null): MastodonFilterResult {
  return { filter, keyword_matches: keywordMatches, status_matches: statusMatches };
}

/** The V1::Filter entity of one keyword: `irreversible` is the filter's `hide` action. */
export function toMastodonV1Filter(keyword: FilterKeywordRow, filter: FilterRow): MastodonV1Filter {
  return {
    id: keyword.id,
    phrase: keyword.keyword,
    context: filterContexts(filter),
    whole_word: keyword.whole_word === 1,
    expires_at: filter.expires_at === null ? null : isoTime(filter.expires_at),
    irreversible: filter.filter_action === 'hide',
  };
}
