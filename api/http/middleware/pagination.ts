import type { Request, Response } from 'express';
import { limitParam } from '../limit.js';
import { id, parse, z } from '../params.js';

/** Standard Mastodon paging parameters, parsed. */
export interface Page {
  maxId?: string | undefined;
  sinceId?: string | undefined;
  minId?: string | undefined;
  limit: number;
}

// Built once: constructing zod schemas costs far more than using them (hot path of every list).
const pageSchema = z.object({ max_id: id().optional(), since_id: id().optional(), min_id: id().optional() });
const ID_KEYS = ['max_id', 'since_id', 'min_id'] as const;

/**
 * Parses max_id, since_id, min_id and limit. The limit is read by the one shared reading of
 * `limitParam` (default when absent, cut to `max`, never refused); ids that are not numbers are a
 * validation error.
 */
export function parsePage(input: Record<string, unknown>, defaultLimit = 20, max = 40): Page {
  const limit = limitParam(input, defaultLimit, max);
  // The first page of a list (no cursor at all) needs no validation.
  if (ID_KEYS.every((k) => input[k] === undefined)) return { limit };
  const p = parse(
    pageSchema,
    // Empty strings are "not given".
    Object.fromEntries(ID_KEYS.map((k) => [k, input[k] === '' ? undefined : input[k]])),
  );
  return { maxId: p.max_id, sinceId: p.since_id, minId: p.min_id, limit };
}

/**
 * Sets the Link header with `next` (older: max_id of the last item) and `prev` (newer: min_id of
 * the first item, or since_id where Mastodon's controller pages back that way: `prev` given as
 * 'since_id'), keeping the request's other query parameters. Nothing is set for an empty page.
 * `cursor` may differ from the entity id (e.g. a favourite's id for the favourites timeline).
 */
export function setLinkHeader(
  req: Request,
  res: Response,
  base: string,
  cursors: { first: string; last: string } | null,
  prev: 'min_id' | 'since_id' = 'min_id',
): void {
  if (!cursors) return;
  const make = (key: 'max_id' | 'min_id' | 'since_id', value: string) => {
    const url = new URL(req.originalUrl, base);
    for (const k of ['max_id', 'min_id', 'since_id', 'access_token']) url.searchParams.delete(k);
    url.searchParams.set(key, value);
    return url.toString();
  };
  res.setHeader('Link', `<${make('max_id', cursors.last)}>; rel="next", <${make(prev, cursors.first)}>; rel="prev"`);
}

/** The first and last cursor of a page of items, or null for an empty page. */
export function pageCursors<T>(items: readonly T[], cursor: (item: T) => string): { first: string; last: string } | null {
  const first = items[0];
  const last = items[items.length - 1];
  if (first === undefined || last === undefined) return null;
  return { first: cursor(first), last: cursor(last) };
}
