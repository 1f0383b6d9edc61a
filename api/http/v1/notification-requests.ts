import {
  acceptNotificationRequest,
  acceptNotificationRequests,
  dismissNotificationRequest,
  dismissNotificationRequests,
  getNotificationRequest,
  listRequestPage,
  notificationRequestsMerged,
  presentNotificationRequests,
} from '../../core/notifications/requests.js';
import { notFound } from '../../util/errors.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import { arrayOf, parse, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';

// `id[]`: the requests to act on. Values that are not ids name no request and are ignored, as
// Mastodon ignores them (it casts each to an integer); none at all acts on nothing.
const idsSchema = z.object({ id: arrayOf(z.union([z.string(), z.number()]).transform(String)) });

function idsParam(ctx: Ctx): string[] {
  return parse(idsSchema, ctx.input).id ?? [];
}

function idParam(ctx: Ctx): string {
  return typeof ctx.input.id === 'string' ? ctx.input.id : '';
}

/** GET/POST /api/v1/notifications/requests…: the notifications the viewer's policy filtered, by sender. */
export function register(r: Routes): void {
  r.get('/api/v1/notifications/requests', 'user', ['read:notifications'], (ctx) => {
    const views = listRequestPage(ctx.deps, ctx.account.id, parsePage(ctx.input, 40, 80));
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(views, (v) => v.id));
    return presentNotificationRequests(ctx.deps, ctx.account.id, views);
  });

  r.get('/api/v1/notifications/requests/merged', 'user', ['read:notifications'], () => ({ merged: notificationRequestsMerged() }));

  r.post('/api/v1/notifications/requests/accept', 'user', ['write:notifications'], (ctx) => {
    acceptNotificationRequests(ctx.deps, ctx.account.id, idsParam(ctx));
    return {};
  });

  r.post('/api/v1/notifications/requests/dismiss', 'user', ['write:notifications'], (ctx) => {
    dismissNotificationRequests(ctx.deps, ctx.account.id, idsParam(ctx));
    return {};
  });

  r.get('/api/v1/notifications/requests/:id', 'user', ['read:notifications'], (ctx) => {
    const [entity] = presentNotificationRequests(ctx.deps, ctx.account.id, [getNotificationRequest(ctx.deps, ctx.account.id, idParam(ctx))]);
    if (!entity) throw notFound();
    return entity;
  });

  r.post('/api/v1/notifications/requests/:id/accept', 'user', ['write:notifications'], (ctx) => {
    acceptNotificationRequest(ctx.deps, ctx.account.id, idParam(ctx));
    return {};
  });

  r.post('/api/v1/notifications/requests/:id/dismiss', 'user', ['write:notifications'], (ctx) => {
    dismissNotificationRequest(ctx.deps, ctx.account.id, idParam(ctx));
    return {};
  });
}
