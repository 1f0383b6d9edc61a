import {
  dismissNotificationGroup,
  getNotificationGroup,
  listNotificationGroups,
  notificationGroupAccountPage,
  unreadGroupCount,
} from '../../core/notifications/grouped.js';
import { notificationVisible, presentNotificationGroups } from '../../core/notifications/present.js';
import { clearAllNotifications } from '../../core/notifications/read.js';
import { presentAccounts } from '../../core/accounts/views.js';
import { ApiError, notFound } from '../../util/errors.js';
import { parsePage, setLinkHeader } from '../middleware/pagination.js';
import { arrayOf, parse, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';
import { countLimit, parseNotificationQuery } from '../v1/notifications.js';

const groupedSchema = z.object({ grouped_types: arrayOf(z.string()) });

/** `expand_accounts`: `full` (default) or `partial_avatars`; anything else is a 400, as Mastodon answers. */
function expandAccounts(input: Record<string, unknown>): 'full' | 'partial_avatars' {
  const value = input.expand_accounts;
  if (value === undefined || value === null || value === '' || value === 'full') return 'full';
  if (value === 'partial_avatars') return 'partial_avatars';
  throw new ApiError(400, `Invalid value for 'expand_accounts': '${String(value)}', allowed values are 'full' and 'partial_avatars'`);
}

function groupKeyParam(ctx: Ctx): string {
  const value = ctx.input.group_key;
  if (typeof value !== 'string' || value === '') throw notFound();
  return value;
}

/** GET/POST /api/v2/notifications…: notifications grouped as Mastodon groups them. */
export function register(r: Routes): void {
  r.get('/api/v2/notifications', 'user', ['read:notifications'], (ctx) => {
    const query = { ...parseNotificationQuery(ctx.input), groupedTypes: parse(groupedSchema, ctx.input).grouped_types };
    const expand = expandAccounts(ctx.input);
    const page = parsePage(ctx.input, 40, 80);
    const result = listNotificationGroups(ctx.deps, ctx.account.id, query, page);
    // Pages are cut on notification ids: next continues below the oldest notification shown.
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, result.range ? { first: result.range.newest, last: result.range.oldest } : null);
    return presentNotificationGroups(ctx.deps, ctx.account.id, result.groups, expand);
  });

  r.get('/api/v2/notifications/unread_count', 'user', ['read:notifications'], (ctx) => {
    const query = { ...parseNotificationQuery(ctx.input), groupedTypes: parse(groupedSchema, ctx.input).grouped_types };
    return { count: unreadGroupCount(ctx.deps, ctx.account.id, query, countLimit(ctx.input)) };
  });

  r.get('/api/v2/notifications/:group_key', 'user', ['read:notifications'], (ctx) => {
    const group = getNotificationGroup(ctx.deps, ctx.account.id, groupKeyParam(ctx));
    if (!notificationVisible(ctx.deps, ctx.account.id, group.statusId)) throw notFound();
    const result = presentNotificationGroups(ctx.deps, ctx.account.id, [group], 'full');
    if (result.notification_groups.length === 0) throw notFound();
    return result;
  });

  r.post('/api/v2/notifications/:group_key/dismiss', 'user', ['write:notifications'], (ctx) => {
    dismissNotificationGroup(ctx.deps, ctx.account.id, groupKeyParam(ctx));
    return {};
  });

  r.post('/api/v2/notifications/clear', 'user', ['write:notifications'], (ctx) => {
    clearAllNotifications(ctx.deps, ctx.account.id);
    return {};
  });

  // Documented with write:notifications, though Mastodon's controller asks for read: either works.
  // Paged by notification id (40 by default, at most 80), with Link headers, as Mastodon pages it.
  r.get('/api/v2/notifications/:group_key/accounts', 'user', ['read:notifications', 'write:notifications'], (ctx) => {
    const result = notificationGroupAccountPage(ctx.deps, ctx.account.id, groupKeyParam(ctx), parsePage(ctx.input, 40, 80));
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, result.range);
    return presentAccounts(ctx.deps, result.accountIds);
  });
}
