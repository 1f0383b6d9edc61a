import { listAuthorizedApps, revokeAuthorizedApp } from '../../core/oauth/authorized-apps.js';
import { notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import type { Routes } from '../routes.js';

/**
 * The applications a person has authorized (Mastodon shows them on a settings page, with no API):
 * `GET /api/hearth/authorized_apps` lists those holding live tokens of the signed-in user, and
 * `DELETE /api/hearth/authorized_apps/:id` revokes every token the user gave one of them.
 */
export function register(r: Routes): void {
  r.get('/api/hearth/authorized_apps', 'user', ['read'], (ctx) => listAuthorizedApps(ctx.deps, ctx.user.id, ctx.auth.token.application_id));

  r.delete('/api/hearth/authorized_apps/:id', 'user', ['write'], (ctx) => {
    const id = String(ctx.req.params.id ?? '');
    if (!isId(id)) throw notFound();
    revokeAuthorizedApp(ctx.deps, ctx.user.id, id);
    return {};
  });
}
