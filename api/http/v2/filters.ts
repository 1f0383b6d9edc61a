import type { FilterDetails, FilterInput, KeywordAttributes } from '../../core/filters/manage.js';
import { createFilter, deleteFilter, getFilter, listFilters, updateFilter } from '../../core/filters/manage.js';
import {
  addFilterStatus,
  addKeyword,
  filterKeywords,
  filterStatuses,
  getFilterStatus,
  getKeyword,
  removeFilterStatus,
  removeKeyword,
  updateKeyword,
  type KeywordInput,
} from '../../core/filters/keywords.js';
import { toMastodonFilter, toMastodonFilterKeyword, toMastodonFilterStatus, type MastodonFilter } from '../../serializers/filter.js';
import { notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import { arrayOf, bool, parse, str, z } from '../params.js';
import type { Ctx, Routes, UserCtx } from '../routes.js';

const READ = ['read:filters'];
const WRITE = ['write:filters'];

/** A path parameter that must be an id; anything else names no record. */
export function pathId(ctx: Ctx, name = 'id'): string {
  const value = String(ctx.req.params[name] ?? '');
  if (!isId(value)) throw notFound();
  return value;
}

/** `expires_in` as given: absent (undefined), cleared (null or ''), or a value core checks. */
export const expiresIn = z.union([z.string(), z.number(), z.null()]).optional();

const filterParams = z.object({
  title: str(),
  context: arrayOf(z.string()),
  filter_action: str(),
  expires_in: expiresIn,
});

const keywordEntry = z.object({
  id: z.union([z.string(), z.number()]).transform(String).optional(),
  keyword: str(),
  whole_word: bool(),
  _destroy: bool(),
});

const keywordParams = z.object({ keyword: str(), whole_word: bool() });
const statusParams = z.object({ status_id: z.union([z.string(), z.number()]).transform(String).optional() });

/**
 * Rails' reading of `name[][key]=value` pairs, in order: a value joins the last entry unless that
 * entry already has the key, in which case it starts a new entry. (qs merges such pairs into one
 * entry of arrays, which loses which `_destroy` goes with which `id`.) Undefined when absent.
 */
export function railsArrayOf(raw: string | undefined, name: string): Record<string, string>[] | undefined {
  if (!raw) return undefined;
  const prefix = `${name}[]`;
  let out: Record<string, string>[] | undefined;
  for (const [key, value] of new URLSearchParams(raw)) {
    if (!key.startsWith(prefix)) continue;
    out ??= [];
    const m = /^\[([^[\]]+)\]$/.exec(key.slice(prefix.length));
    if (!m?.[1]) continue;
    const child = m[1];
    const last = out[out.length - 1];
    if (last && !(child in last)) last[child] = value;
    else out.push({ [child]: value });
  }
  return out;
}

/**
 * `keywords_attributes` from wherever it came: a JSON body, a form or multipart body (bracketed
 * `[]` entries read as Rails reads them), or the query string; body first, as Rails merges them.
 */
function rawKeywordsAttributes(ctx: Ctx): unknown {
  const name = 'keywords_attributes';
  const body: unknown = ctx.req.body;
  const bodyValue = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[name] : undefined;
  if (ctx.req.is('application/json')) {
    if (bodyValue !== undefined) return bodyValue;
  } else {
    const fromForm = railsArrayOf(ctx.req.rawForm, name);
    if (fromForm) return fromForm;
    if (bodyValue !== undefined) return bodyValue;
  }
  const query = ctx.req.originalUrl.includes('?') ? ctx.req.originalUrl.slice(ctx.req.originalUrl.indexOf('?') + 1) : '';
  return railsArrayOf(query, name) ?? ctx.input[name];
}

/**
 * The entries of nested attributes as Rails accepts them: an array of entries, a hash of entries
 * by index (taken in index order), or one entry given as a hash with an `id`.
 */
function nestedEntries(value: unknown): unknown[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (Array.isArray(value)) return value;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if ('id' in record) return [record];
    return Object.keys(record)
      .sort((a, b) => Number(a) - Number(b))
      .map((k) => record[k]);
  }
  return [value];
}

function keywordsAttributes(ctx: Ctx): KeywordAttributes[] | undefined {
  const entries = nestedEntries(rawKeywordsAttributes(ctx));
  if (entries === undefined) return undefined;
  return entries.map((entry) => {
    const e = parse(keywordEntry, entry);
    // An id that cannot exist is not one of the filter's keywords: 404 as for any unknown id.
    if (e.id !== undefined && e.id !== '' && !isId(e.id)) throw notFound();
    return { id: e.id, keyword: e.keyword, whole_word: e.whole_word, _destroy: e._destroy };
  });
}

function filterInput(ctx: Ctx): FilterInput {
  const p = parse(filterParams, ctx.input);
  return { title: p.title, context: p.context, filter_action: p.filter_action, expires_in: p.expires_in, keywords_attributes: keywordsAttributes(ctx) };
}

function keywordInput(ctx: Ctx): KeywordInput {
  const p = parse(keywordParams, ctx.input);
  return { keyword: p.keyword, whole_word: p.whole_word };
}

function present(d: FilterDetails): MastodonFilter {
  return toMastodonFilter(d.filter, d);
}

function addKeywordHandler(ctx: UserCtx) {
  return toMastodonFilterKeyword(addKeyword(ctx.deps, ctx.account.id, pathId(ctx, 'filter_id'), keywordInput(ctx)));
}

/**
 * Filters v2 (server-side filters with keywords and targeted posts): CRUD of filters with nested
 * keyword edits, keywords (also under /api/v1/filters/keywords/:id, where Mastodon moved them),
 * and filter statuses. read:filters reads, write:filters changes; others' filters are 404.
 */
export function register(r: Routes): void {
  // Keyword and status entries by their own id, at both places clients look for them.
  for (const base of ['/api/v1/filters', '/api/v2/filters']) {
    r.get(`${base}/keywords/:id`, 'user', READ, (ctx) => toMastodonFilterKeyword(getKeyword(ctx.deps, ctx.account.id, pathId(ctx))));
    r.put(`${base}/keywords/:id`, 'user', WRITE, (ctx) => toMastodonFilterKeyword(updateKeyword(ctx.deps, ctx.account.id, pathId(ctx), keywordInput(ctx))));
    r.delete(`${base}/keywords/:id`, 'user', WRITE, (ctx) => {
      removeKeyword(ctx.deps, ctx.account.id, pathId(ctx));
      return {};
    });
    r.get(`${base}/statuses/:id`, 'user', READ, (ctx) => toMastodonFilterStatus(getFilterStatus(ctx.deps, ctx.account.id, pathId(ctx))));
    r.delete(`${base}/statuses/:id`, 'user', WRITE, (ctx) => {
      removeFilterStatus(ctx.deps, ctx.account.id, pathId(ctx));
      return {};
    });
  }

  r.get('/api/v2/filters', 'user', READ, (ctx) => listFilters(ctx.deps, ctx.account.id).map(present));
  r.post('/api/v2/filters', 'user', WRITE, (ctx) => present(createFilter(ctx.deps, ctx.account.id, filterInput(ctx))));
  r.get('/api/v2/filters/:id', 'user', READ, (ctx) => present(getFilter(ctx.deps, ctx.account.id, pathId(ctx))));
  r.put('/api/v2/filters/:id', 'user', WRITE, (ctx) => present(updateFilter(ctx.deps, ctx.account.id, pathId(ctx), filterInput(ctx))));
  r.delete('/api/v2/filters/:id', 'user', WRITE, (ctx) => {
    deleteFilter(ctx.deps, ctx.account.id, pathId(ctx));
    return {};
  });

  r.get('/api/v2/filters/:filter_id/keywords', 'user', READ, (ctx) =>
    filterKeywords(ctx.deps, ctx.account.id, pathId(ctx, 'filter_id')).map(toMastodonFilterKeyword),
  );
  r.post('/api/v2/filters/:filter_id/keywords', 'user', WRITE, addKeywordHandler);
  // The spec lists this path for adding a keyword; the trailing id names nothing and is ignored.
  r.post('/api/v2/filters/:filter_id/keywords/:id', 'user', WRITE, addKeywordHandler);

  r.get('/api/v2/filters/:filter_id/statuses', 'user', READ, (ctx) =>
    filterStatuses(ctx.deps, ctx.account.id, pathId(ctx, 'filter_id')).map(toMastodonFilterStatus),
  );
  r.post('/api/v2/filters/:filter_id/statuses', 'user', WRITE, (ctx) => {
    const p = parse(statusParams, ctx.input);
    return toMastodonFilterStatus(addFilterStatus(ctx.deps, ctx.account.id, pathId(ctx, 'filter_id'), p.status_id ?? ''));
  });
}
