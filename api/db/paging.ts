/** Paging bounds for a keyset query, as the HTTP layer parses them (max_id, since_id, min_id, limit). */
export interface PageBounds {
  maxId?: string | undefined;
  sinceId?: string | undefined;
  minId?: string | undefined;
  limit: number;
}

/** SQL pieces for one keyset page over an id-like column. */
export interface PageSql {
  /** `AND …` conditions (empty string when unbounded); uses @page_max_id, @page_since_id, @page_min_id. */
  where: string;
  /** `ORDER BY … LIMIT @page_limit`. */
  orderLimit: string;
  params: Record<string, string | number | undefined>;
  /** True when rows come back oldest first (min_id paging) and must be reversed before answering. */
  reverse: boolean;
}

/**
 * Builds keyset paging for a column that sorts by time (an id or a cursor column). Results are
 * newest first; with min_id the query walks forward from it (oldest first) and the caller reverses,
 * so that the page is the one just after min_id, as Mastodon answers it.
 */
export function pageSql(column: string, page: PageBounds): PageSql {
  const parts: string[] = [];
  if (page.maxId) parts.push(`${column} < @page_max_id`);
  if (page.sinceId) parts.push(`${column} > @page_since_id`);
  if (page.minId) parts.push(`${column} > @page_min_id`);
  const reverse = Boolean(page.minId);
  return {
    where: parts.length ? `AND ${parts.join(' AND ')}` : '',
    orderLimit: `ORDER BY ${column} ${reverse ? 'ASC' : 'DESC'} LIMIT @page_limit`,
    params: { page_max_id: page.maxId, page_since_id: page.sinceId, page_min_id: page.minId, page_limit: page.limit },
    reverse,
  };
}
