import {
  clearAllNotifications,
  dismissNotification,
  getNotification,
  listNotificationPage,
  unreadNotificationCount,
  type NotificationQuery,
} from '../../core/notifications/read.js';
import { notificationVisible, presentNotifications } from '../../core/notifications/present.js';
import { notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import { limitParam } from '../limit.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import { arrayOf, bool, parse, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';

const filterSchema = z.object({
  types: arrayOf(z.string()),
  exclude_types: arrayOf(z.string()),
  account_id: z.preprocess((v) => (v === '' || v === null ? undefined : typeof v === 'number' ? String(v) : v), z.string().optional()),
  include_filtered: bool(),
});

// No account has this id: an `account_id` that cannot be an id matches nothing, as in Mastodon
// (which casts it to an integer and finds no notification), rather than being an error.
const NO_ACCOUNT = '0';

/** Parses the shared filters of the notification listings and counts (`types[]`, `exclude_types[]`, `account_id`, `include_filtered`). */
export function parseNotificationQuery(input: Record<string, unknown>): NotificationQuery {
  const p = parse(filterSchema, input);
  const accountId = p.account_id === undefined ? undefined : isId(p.account_id) ? p.account_id : NO_ACCOUNT;
  return { types: p.types, excludeTypes: p.exclude_types, accountId, includeFiltered: p.include_filtered };
}

/** The count limit of the unread_count endpoints: 100 by default, at most 1000 (the shared `limit` reading). */
export function countLimit(input: Record<string, unknown>): number {
  return limitParam(input, 100, 1000);
}

function idParam(ctx: Ctx): string {
  const value = ctx.input.id;
  if (typeof value !== 'string' || !isId(value)) throw notFound();
  return value;
}

/** GET/POST /api/v1/notifications…: the viewer's notifications, one by one. */
export function register(r: Routes): void {
  r.get('/api/v1/notifications', 'user', ['read:notifications'], (ctx) => {
    const query = parseNotificationQuery(ctx.input);
    const page = parsePage(ctx.input, 40, 80);
    const rows = listNotificationPage(ctx.deps, ctx.account.id, query, page);
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(rows, (n) => n.id));
    return presentNotifications(ctx.deps, ctx.account.id, rows);
  });

  r.get('/api/v1/notifications/unread_count', 'user', ['read:notifications'], (ctx) => {
    const query = parseNotificationQuery(ctx.input);
    return { count: unreadNotificationCount(ctx.deps, ctx.account.id, query, countLimit(ctx.input)) };
  });

  r.post('/api/v1/notifications/clear', 'user', ['write:notifications'], (ctx) => {
    clearAllNotifications(ctx.deps, ctx.account.id);
    return {};
  });

  r.get('/api/v1/notifications/:id', 'user', ['read:notifications'], (ctx) => {
    const row = getNotification(ctx.deps, ctx.account.id, idParam(ctx));
    if (!notificationVisible(ctx.deps, ctx.account.id, row.status_id)) throw notFound();
    const [entity] = presentNotifications(ctx.deps, ctx.account.id, [row]);
    if (!entity) throw notFound();
    return entity;
  });

  r.post('/api/v1/notifications/:id/dismiss', 'user', ['write:notifications'], (ctx) => {
    dismissNotification(ctx.deps, ctx.account.id, idParam(ctx));
    return {};
  });
}
