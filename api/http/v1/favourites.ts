import { markedStatuses } from '../../core/timelines/listing.js';
import { pageCursors, parsePage } from '../middleware/pagination.js';
import type { Routes } from '../routes.js';
import { sendStatusPage } from './timelines.js';

/**
 * GET /api/v1/favourites and /api/v1/bookmarks: the statuses the user favourited or bookmarked
 * (and may still see), newest first, paged by the favourite or bookmark id through the Link header.
 */
export function register(r: Routes): void {
  for (const kind of ['favourites', 'bookmarks'] as const) {
    r.get(`/api/v1/${kind}`, 'user', [`read:${kind}`], (ctx) =>
      sendStatusPage(ctx, ctx.account.id, () => {
        const rows = markedStatuses(ctx.deps, ctx.account.id, kind, parsePage(ctx.input));
        return { status: 200, ids: rows.map((row) => row.status_id), cursors: pageCursors(rows, (row) => row.cursor_id) };
      }),
    );
  }
}
