import type { AnnouncementParams } from '../../core/announcements/input.js';
import {
  createAnnouncement,
  deleteAnnouncement,
  findAnnouncementOr404,
  listAdminAnnouncements,
  presentAdminAnnouncement,
  publishAnnouncement,
  unpublishAnnouncement,
  updateAnnouncement,
} from '../../core/announcements/manage.js';
import { flushAnnouncementEvents } from '../../core/announcements/outbox.js';
import { requireAnnouncementManager } from '../../core/announcements/staff.js';
import { bool, parse, z } from '../params.js';
import type { Routes, UserCtx } from '../routes.js';

/** A time: text, or null / '' to clear it (numbers are not dates here). */
const time = () => z.union([z.string(), z.null()]).optional();

/** The fields of a new or edited announcement; those left out are not given (an edit keeps them). */
const fieldsSchema = z.object({
  text: z.preprocess((v) => (v === null ? '' : v), z.string().optional()),
  starts_at: time(),
  ends_at: time(),
  scheduled_at: time(),
  all_day: bool(),
});

function params(ctx: UserCtx): AnnouncementParams {
  const p = parse(fieldsSchema, ctx.input);
  return { text: p.text, starts_at: p.starts_at, ends_at: p.ends_at, scheduled_at: p.scheduled_at, all_day: p.all_day };
}

function pathId(ctx: UserCtx): string {
  return String(ctx.req.params.id ?? '');
}

/** Checks the caller may manage announcements (403 otherwise), before anything else is looked at. */
function staff(ctx: UserCtx): UserCtx {
  requireAnnouncementManager(ctx.deps, ctx.user);
  return ctx;
}

/**
 * Announcements for the staff (Hearth's own admin method, for its UI: Mastodon manages them in its
 * web admin only). The entity is the Announcement with the raw `text`, `published`, `scheduled_at`
 * and `created_at`. Changes reach users' streams at once.
 */
export function register(r: Routes): void {
  r.get('/api/v1/admin/announcements', 'user', ['admin:read'], (ctx) => listAdminAnnouncements(staff(ctx).deps));

  r.get('/api/v1/admin/announcements/:id', 'user', ['admin:read'], (ctx) => presentAdminAnnouncement(ctx.deps, findAnnouncementOr404(staff(ctx).deps, pathId(ctx))));

  r.post('/api/v1/admin/announcements', 'user', ['admin:write'], (ctx) => {
    const row = createAnnouncement(staff(ctx).deps, params(ctx));
    flushAnnouncementEvents(ctx.deps);
    return presentAdminAnnouncement(ctx.deps, row);
  });

  r.put('/api/v1/admin/announcements/:id', 'user', ['admin:write'], (ctx) => {
    const row = updateAnnouncement(staff(ctx).deps, pathId(ctx), params(ctx));
    flushAnnouncementEvents(ctx.deps);
    return presentAdminAnnouncement(ctx.deps, row);
  });

  r.post('/api/v1/admin/announcements/:id/publish', 'user', ['admin:write'], (ctx) => {
    const row = publishAnnouncement(staff(ctx).deps, pathId(ctx));
    flushAnnouncementEvents(ctx.deps);
    return presentAdminAnnouncement(ctx.deps, row);
  });

  r.post('/api/v1/admin/announcements/:id/unpublish', 'user', ['admin:write'], (ctx) => {
    const row = unpublishAnnouncement(staff(ctx).deps, pathId(ctx));
    flushAnnouncementEvents(ctx.deps);
    return presentAdminAnnouncement(ctx.deps, row);
  });

  r.delete('/api/v1/admin/announcements/:id', 'user', ['admin:write'], (ctx) => {
    deleteAnnouncement(staff(ctx).deps, pathId(ctx));
    flushAnnouncementEvents(ctx.deps);
    return {};
  });
}
