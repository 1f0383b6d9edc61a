import {
  createWebhook,
  editWebhook,
  getWebhook,
  listWebhooks,
  removeWebhook,
  rotateWebhookSecret,
  setWebhookEnabled,
  type WebhookInput,
} from '../../core/webhooks/manage.js';
import { requirePermission } from '../../core/roles/access.js';
import { PERMISSION } from '../../util/permissions.js';
import { arrayOf, parse, str, z } from '../params.js';
import type { Routes, UserCtx } from '../routes.js';

const fieldsSchema = z.object({
  url: str(4096),
  events: arrayOf(z.string().max(100)),
  // null clears the template, as '' does.
  template: z.union([z.string().max(100_000), z.null()]).optional(),
});

function fields(ctx: UserCtx): WebhookInput {
  const p = parse(fieldsSchema, ctx.input);
  return { url: p.url, events: p.events, template: p.template };
}

/** The caller's context once they hold Manage Webhooks (403 otherwise), checked before anything else. */
function manager(ctx: UserCtx): UserCtx {
  requirePermission(ctx.deps, ctx.user, PERMISSION.manageWebhooks);
  return ctx;
}

function id(ctx: UserCtx): string {
  return String(ctx.req.params.id ?? '');
}

/**
 * Webhooks (Hearth's admin method, shaped as Mastodon's web admin manages them, which has no API
 * for it): list, show, create (`url`, `events[]`, `template`; a secret is made), update, delete,
 * enable, disable and rotate the secret. Manage Webhooks; `admin:read` to look, `admin:write` to
 * change. Payloads go out signed with `X-Hub-Signature` (core/webhooks/).
 */
export function register(r: Routes): void {
  r.get('/api/v1/admin/webhooks', 'user', ['admin:read'], (ctx) => listWebhooks(manager(ctx).deps));
  r.get('/api/v1/admin/webhooks/:id', 'user', ['admin:read'], (ctx) => getWebhook(manager(ctx).deps, id(ctx)));
  r.post('/api/v1/admin/webhooks', 'user', ['admin:write'], (ctx) => createWebhook(manager(ctx).deps, ctx.user, fields(ctx)));
  r.put('/api/v1/admin/webhooks/:id', 'user', ['admin:write'], (ctx) => editWebhook(manager(ctx).deps, ctx.user, id(ctx), fields(ctx)));
  r.delete('/api/v1/admin/webhooks/:id', 'user', ['admin:write'], (ctx) => {
    removeWebhook(manager(ctx).deps, id(ctx));
    return {};
  });
  r.post('/api/v1/admin/webhooks/:id/enable', 'user', ['admin:write'], (ctx) => setWebhookEnabled(manager(ctx).deps, id(ctx), true));
  r.post('/api/v1/admin/webhooks/:id/disable', 'user', ['admin:write'], (ctx) => setWebhookEnabled(manager(ctx).deps, id(ctx), false));
  r.post('/api/v1/admin/webhooks/:id/rotate_secret', 'user', ['admin:write'], (ctx) => rotateWebhookSecret(manager(ctx).deps, id(ctx)));
}
