import type { Request, Response } from 'express';

/**
 * Sets the Link header of an offset-paged list as Mastodon's trends and collections do: `next`
 * when the page is full (there may be more), `prev` when the page does not start at 0. Other query
 * parameters are kept.
 */
export function setOffsetLinkHeader(req: Request, res: Response, base: string, page: { offset: number; limit: number; count: number }): void {
  const make = (offset: number) => {
    const url = new URL(req.originalUrl, base);
    url.searchParams.delete('access_token');
    url.searchParams.set('offset', String(offset));
    url.searchParams.set('limit', String(page.limit));
    return url.toString();
  };
  const links: string[] = [];
  if (page.limit > 0 && page.count >= page.limit) links.push(`<${make(page.offset + page.limit)}>; rel="next"`);
  if (page.offset > 0) links.push(`<${make(Math.max(0, page.offset - page.limit))}>; rel="prev"`);
  if (links.length > 0) res.setHeader('Link', links.join(', '));
}
