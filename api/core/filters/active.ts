import type { Db } from '../../db/connection.js';
import { filtersOf, filterTextSources, keywordsOfFilters, statusesOfFilters, type FilterContext, type FilterKeywordRow, type FilterRow, type FilterTextSource } from '../../db/repos/filters.js';
import { filterContexts, toMastodonFilter, toMastodonFilterResult, type MastodonFilter, type MastodonFilterResult } from '../../serializers/filter.js';
import { now } from '../../util/clock.js';
import { htmlToPlainText } from '../../util/text/index.js';
import type { Deps } from '../deps.js';
import { pollOptionTitles } from '../../db/repos/polls.js';

/**
 * Applying filters: each account's filters are compiled once (one regular expression per filter)
 * and cached until they change; expired filters stay cached but are never applied.
 */

/** A filter ready to be matched. */
export interface ActiveFilter {
  row: FilterRow;
  contexts: ReadonlySet<FilterContext>;
  /** The Filter entity as a FilterResult carries it (no keywords or statuses). */
  entity: MastodonFilter;
  /** All keywords as one case-insensitive expression, or null when the filter has none. */
  keywords: RegExp | null;
  /** Ids of the posts the filter targets. */
  statusIds: ReadonlySet<string>;
}

/** Accounts whose compiled filters are kept; the least recently loaded go first. */
const CACHE_SIZE = 1000;
const caches = new WeakMap<Db, Map<string, ActiveFilter[]>>();

function cacheOf(deps: Deps): Map<string, ActiveFilter[]> {
  let cache = caches.get(deps.db);
  if (!cache) {
    cache = new Map();
    caches.set(deps.db, cache);
  }
  return cache;
}

// A word character as Ruby's [[:word:]] has it (letters, marks, decimal digits, connectors):
// Mastodon matches whole words on the server with Ruby's Unicode-aware boundaries.
const WORD_CHAR = /[\p{L}\p{M}\p{Nd}\p{Pc}]/u;
const NOT_AFTER_WORD = '(?<![\\p{L}\\p{M}\\p{Nd}\\p{Pc}])';
const NOT_BEFORE_WORD = '(?![\\p{L}\\p{M}\\p{Nd}\\p{Pc}])';

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/**
 * The expression of one keyword, as Mastodon builds it: without whole_word a plain substring;
 * with it, a word boundary is required only at an end where the keyword itself has a word
 * character (so "#tag" or "c++" still match next to letters on their symbol side).
 */
export function keywordPattern(keyword: Pick<FilterKeywordRow, 'keyword' | 'whole_word'>): string {
  const escaped = escapeRegExp(keyword.keyword);
  if (keyword.whole_word !== 1) return escaped;
  const chars = [...keyword.keyword];
  const start = chars[0] !== undefined && WORD_CHAR.test(chars[0]) ? NOT_AFTER_WORD : '';
  const end = chars[chars.length - 1] !== undefined && WORD_CHAR.test(chars[chars.length - 1] ?? '') ? NOT_BEFORE_WORD : '';
  return `${start}${escaped}${end}`;
}

function compile(filter: FilterRow, keywords: readonly FilterKeywordRow[], statusIds: readonly string[]): ActiveFilter {
  const patterns = keywords.filter((k) => k.keyword !== '').map(keywordPattern);
  return {
    row: filter,
    contexts: new Set(filterContexts(filter)),
    entity: toMastodonFilter(filter),
    keywords: patterns.length ? new RegExp(patterns.join('|'), 'iu') : null,
    statusIds: new Set(statusIds),
  };
}

function loadAll(deps: Deps, accountId: string): ActiveFilter[] {
  const cache = cacheOf(deps);
  const cached = cache.get(accountId);
  if (cached) return cached;
  const filters = filtersOf(deps.db, accountId);
  const ids = filters.map((f) => f.id);
  const keywords = keywordsOfFilters(deps.db, ids);
  const statuses = statusesOfFilters(deps.db, ids);
  const compiled = filters.map((f) =>
    compile(
      f,
      keywords.filter((k) => k.filter_id === f.id),
      statuses.filter((s) => s.filter_id === f.id).map((s) => s.status_id),
    ),
  );
  if (cache.size >= CACHE_SIZE) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(accountId, compiled);
  return compiled;
}

/** Forgets an account's compiled filters; core calls it after every filter change. */
export function invalidateFilterCache(deps: Deps, accountId: string): void {
  cacheOf(deps).delete(accountId);
}

/** The account's filters that apply now (expired ones excluded), compiled; cached per account. */
export function loadActiveFilters(deps: Deps, accountId: string): ActiveFilter[] {
  const at = now();
  return loadAll(deps, accountId).filter((f) => f.row.expires_at === null || f.row.expires_at > at);
}

/**
 * The FilterResults of one status: every filter (of those applying in `context`; null means any
 * context, as the REST `filtered` attribute reports them and clients pick by context) whose
 * keywords occur in `statusText` or that targets one of `statusId` (a reblog passes its own id and
 * the reblogged one). `keyword_matches` holds the text that matched, as Mastodon reports it.
 */
export function matchFilters(
  filters: readonly ActiveFilter[],
  context: FilterContext | null,
  statusText: string,
  statusId: string | readonly string[],
): MastodonFilterResult[] {
  const ids = typeof statusId === 'string' ? [statusId] : statusId;
  const at = now();
  const out: MastodonFilterResult[] = [];
  for (const filter of filters) {
    if (context !== null && !filter.contexts.has(context)) continue;
    if (filter.row.expires_at !== null && filter.row.expires_at <= at) continue;
    const match = filter.keywords?.exec(statusText);
    const keywordMatches = match ? [match[0]] : null;
    const statusMatches = ids.filter((id) => filter.statusIds.has(id));
    if (!keywordMatches && statusMatches.length === 0) continue;
    out.push(toMastodonFilterResult(filter.entity, keywordMatches, statusMatches.length ? statusMatches : null));
  }
  return out;
}

/** The parts of a status a filter looks at (a StatusView fits). */
export interface FilterableStatus {
  status: Pick<FilterTextSource, 'id' | 'account_id' | 'reblog_of_id' | 'local' | 'text' | 'content' | 'spoiler_text'>;
  reblog: FilterableStatus | null;
  media: readonly { description: string | null }[];
  poll: { options: string } | null;
}


/**
 * The text filters match, as Mastodon's `searchable_text`: content warning, plain text (what a
 * local author typed; remote HTML reduced to text), poll options and media descriptions.
 */
export function filterableText(parts: { local: number; text: string; content: string; spoiler_text: string; pollOptions: string | null; media: readonly string[] }): string {
  const body = parts.local && parts.text !== '' ? parts.text : htmlToPlainText(parts.content);
  return [parts.spoiler_text, body, pollOptionTitles(parts.pollOptions).join('\n\n'), parts.media.join('\n\n')].join('\n\n');
}

// Results per status id; a reblog's results (matched on the reblogged post) go on both ids.
function collect(
  viewerAccountId: string,
  filters: readonly ActiveFilter[],
  context: FilterContext | null,
  items: readonly { id: string; accountId: string; reblogOfId: string | null; text: () => string }[],
): Map<string, MastodonFilterResult[]> {
  const out = new Map<string, MastodonFilterResult[]>();
  for (const item of items) {
    // The viewer's own posts are never filtered for them.
    if (item.accountId === viewerAccountId) continue;
    const ids = item.reblogOfId ? [item.id, item.reblogOfId] : [item.id];
    const results = matchFilters(filters, context, item.text(), ids);
    if (results.length === 0) continue;
    out.set(item.id, results);
    if (item.reblogOfId) out.set(item.reblogOfId, results);
  }
  return out;
}

/**
 * The `filtered` attribute for a batch of loaded statuses (StatusViews): FilterResults by status
 * id, for the viewer. Statuses without a match are absent from the map (their `filtered` is []).
 * Pass `context` null for the REST attribute (all contexts, as Mastodon answers), or a context for
 * server-side decisions.
 */
export function filterResultsFor(
  deps: Deps,
  viewerAccountId: string | null,
  context: FilterContext | null,
  statusViews: readonly FilterableStatus[],
): Map<string, MastodonFilterResult[]> {
  if (viewerAccountId === null) return new Map();
  const filters = loadActiveFilters(deps, viewerAccountId);
  if (filters.length === 0) return new Map();
  return collect(
    viewerAccountId,
    filters,
    context,
    statusViews.map((view) => {
      const proper = view.reblog ?? view;
      return {
        id: view.status.id,
        accountId: view.status.account_id,
        reblogOfId: view.reblog ? view.reblog.status.id : null,
        text: () =>
          filterableText({
            ...proper.status,
            pollOptions: proper.poll?.options ?? null,
            media: proper.media.map((m) => m.description).filter((d): d is string => d !== null && d !== ''),
          }),
      };
    }),
  );
}

/**
 * Like `filterResultsFor`, from status ids alone (for paths that render statuses from a cache):
 * the texts are loaded in at most two queries, and only when the viewer has active filters.
 */
export function filterResultsForIds(deps: Deps, viewerAccountId: string | null, context: FilterContext | null, statusIds: readonly string[]): Map<string, MastodonFilterResult[]> {
  if (viewerAccountId === null || statusIds.length === 0) return new Map();
  const filters = loadActiveFilters(deps, viewerAccountId);
  if (filters.length === 0) return new Map();
  const sources = new Map(filterTextSources(deps.db, statusIds).map((s) => [s.id, s]));
  const inner = [...sources.values()].map((s) => s.reblog_of_id).filter((id): id is string => id !== null && !sources.has(id));
  for (const s of filterTextSources(deps.db, inner)) sources.set(s.id, s);
  const items = statusIds.flatMap((id) => {
    const source = sources.get(id);
    if (!source) return [];
    const proper = (source.reblog_of_id && sources.get(source.reblog_of_id)) || source;
    const text = () => filterableText({ ...proper, pollOptions: proper.poll_options, media: proper.media_text ? [proper.media_text] : [] });
    return [{ id, accountId: source.account_id, reblogOfId: source.reblog_of_id, text }];
  });
  return collect(viewerAccountId, filters, context, items);
}

/**
 * Of `statusIds`, those a `hide` filter of the viewer drops in `context` (irreversible v1 filters
 * are `hide` filters): home and notifications drop them on the server, and so may any path.
 */
export function hiddenStatusIds(deps: Deps, viewerAccountId: string | null, context: FilterContext, statusIds: readonly string[]): Set<string> {
  const results = filterResultsForIds(deps, viewerAccountId, context, statusIds);
  const hidden = new Set<string>();
  for (const id of statusIds) if (results.get(id)?.some((r) => r.filter.filter_action === 'hide')) hidden.add(id);
  return hidden;
}
