import { addAnnouncementReaction, dismissAnnouncement, listUserAnnouncements, removeAnnouncementReaction } from '../../core/announcements/user.js';
import { ALL_SCOPES } from '../../core/oauth/scopes.js';
import { bool, parse, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';

/**
 * Mastodon asks for no particular scope to list announcements (any user token); Hearth declares one
 * on every route, so any read scope will do.
 */
const ANY_READ_SCOPE = ALL_SCOPES.filter((s) => s === 'read' || s.startsWith('read:'));

const listSchema = z.object({ with_dismissed: bool() });

function pathId(ctx: Ctx): string {
  return String(ctx.req.params.id ?? '');
}

/** Express has already decoded the path parameter (a Unicode emoji arrives percent-encoded). */
function reactionName(ctx: Ctx): string {
  return String(ctx.req.params.name ?? '');
}

/** The announcements API for users: list, dismiss, add and remove reactions. */
export function register(r: Routes): void {
  r.get('/api/v1/announcements', 'user', ANY_READ_SCOPE, (ctx) => {
    const p = parse(listSchema, ctx.input);
    return listUserAnnouncements(ctx.deps, ctx.account.id, { withDismissed: p.with_dismissed });
  });

  r.post('/api/v1/announcements/:id/dismiss', 'user', ['write:accounts'], (ctx) => {
    dismissAnnouncement(ctx.deps, ctx.account.id, pathId(ctx));
    return {};
  });

  r.put('/api/v1/announcements/:id/reactions/:name', 'user', ['write:favourites'], (ctx) => {
    addAnnouncementReaction(ctx.deps, ctx.account.id, pathId(ctx), reactionName(ctx));
    return {};
  });

  r.delete('/api/v1/announcements/:id/reactions/:name', 'user', ['write:favourites'], (ctx) => {
    removeAnnouncementReaction(ctx.deps, ctx.account.id, pathId(ctx), reactionName(ctx));
    return {};
  });
}
