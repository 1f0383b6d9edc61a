import {
  cancelScheduledStatus,
  getScheduledStatus,
  listScheduledStatuses,
  rescheduleStatus,
} from '../../core/scheduled/manage.js';
import { parseScheduledAt } from '../../core/scheduled/schedule.js';
import { parsePage, setLinkHeader } from '../middleware/pagination.js';
import type { Ctx, Routes } from '../routes.js';

function pathId(ctx: Ctx): string {
  return String(ctx.req.params.id ?? '');
}

/** The scheduled statuses API: list (paged, Link), get, reschedule (PUT), cancel (DELETE). */
export function register(r: Routes): void {
  r.get('/api/v1/scheduled_statuses', 'user', ['read:statuses'], (ctx) => {
    const { items, cursors } = listScheduledStatuses(ctx.deps, ctx.account.id, parsePage(ctx.input, 20, 40));
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, cursors);
    return items;
  });

  r.get('/api/v1/scheduled_statuses/:id', 'user', ['read:statuses'], (ctx) => getScheduledStatus(ctx.deps, ctx.account.id, pathId(ctx)));

  r.put('/api/v1/scheduled_statuses/:id', 'user', ['write:statuses'], (ctx) => {
    // Not found first (404), then the new time; without one, nothing changes (as Mastodon's update).
    const current = getScheduledStatus(ctx.deps, ctx.account.id, pathId(ctx));
    const raw = ctx.input.scheduled_at;
    if (raw === undefined || raw === null || raw === '') return current;
    return rescheduleStatus(ctx.deps, ctx.account.id, current.id, parseScheduledAt(raw));
  });

  r.delete('/api/v1/scheduled_statuses/:id', 'user', ['write:statuses'], (ctx) => {
    cancelScheduledStatus(ctx.deps, ctx.account.id, pathId(ctx));
    return {};
  });
}
