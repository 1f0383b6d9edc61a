import type { Request, Response } from 'express';
import { int, id, parse, z } from '../params.js';

/** Standard Mastodon paging parameters, parsed. */
export interface Page {
  maxId?: string | undefined;
  sinceId?: string | undefined;
  minId?: string | undefined;
  limit: number;
}

// Built once: constructing zod schemas costs far more than using them (hot path of every list).
const pageSchema = z.object({ max_id: id().optional(), since_id: id().optional(), min_id: id().optional(), limit: int(-1_000_000, 1_000_000) });
const PAGE_KEYS = ['max_id', 'since_id', 'min_id', 'limit'] as const;

/**
 * Parses max_id, since_id, min_id and limit. A limit above `max` is clamped to it, as Mastodon
 * does; ids that are not numbers are a validation error.
 */
export function parsePage(input: Record<string, unknown>, defaultLimit = 20, max = 40): Page {
  // The first page of a list (no paging parameter at all) needs no validation.
  if (PAGE_KEYS.every((k) => input[k] === undefined)) return { limit: defaultLimit };
  const p = parse(
    pageSchema,
    // Empty strings are "not given".
    Object.fromEntries(PAGE_KEYS.map((k) => [k, input[k] === '' ? undefined : input[k]])),
  );
  const limit = p.limit === undefined || p.limit <= 0 ? defaultLimit : Math.min(p.limit, max);
  return { maxId: p.max_id, sinceId: p.since_id, minId: p.min_id, limit };
}

/**
 * Sets the Link header with `next` (older: max_id of the last item) and `prev` (newer: min_id of
 * the first item), keeping the request's other query parameters. Nothing is set for an empty page.
 * `cursor` may differ from the entity id (e.g. a favourite's id for the favourites timeline).
 */
export function setLinkHeader(req: Request, res: Response, base: string, cursors: { first: string; last: string } | null): void {
  if (!cursors) return;
  const make = (key: 'max_id' | 'min_id', value: string) => {
    const url = new URL(req.originalUrl, base);
    for (const k of ['max_id', 'min_id', 'since_id', 'access_token']) url.searchParams.delete(k);
    url.searchParams.set(key, value);
    return url.toString();
  };
  res.setHeader('Link', `<${make('max_id', cursors.last)}>; rel="next", <${make('min_id', cursors.first)}>; rel="prev"`);
}

/** The first and last cursor of a page of items, or null for an empty page. */
export function pageCursors<T>(items: readonly T[], cursor: (item: T) => string): { first: string; last: string } | null {
  const first = items[0];
  const last = items[items.length - 1];
  if (first === undefined || last === undefined) return null;
  return { first: cursor(first), last: cursor(last) };
}
