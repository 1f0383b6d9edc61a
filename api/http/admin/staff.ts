import { requirePermission } from '../../core/roles/access.js';
import { forbidden, notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import type { Ctx } from '../routes.js';

/** The signed-in staff member of an admin request. */
export type StaffUser = NonNullable<NonNullable<Ctx['auth']>['user']>;
export type StaffAccount = NonNullable<NonNullable<Ctx['auth']>['account']>;

/**
 * The caller of an admin method, once their role holds `permission` (one of PERMISSION). Admin
 * routes are declared `public` with their scopes, as Mastodon's admin controllers authorize: a
 * token, when given, must be valid (401) and carry the scope (403); then anyone who is not a
 * signed-in user whose role holds the permission, a request without a token included, gets
 * Mastodon's 403 "This action is not allowed".
 */
export function requireStaff(ctx: Ctx, permission: number): { user: StaffUser; account: StaffAccount } {
  const user = ctx.auth?.user;
  const account = ctx.auth?.account;
  if (!user || !account || user.confirmed_at === null || !user.approved) throw forbidden();
  requirePermission(ctx.deps, user, permission);
  return { user, account };
}

/** The `:id` path parameter of an admin record: 404 when it cannot name one. */
export function recordId(ctx: Ctx): string {
  const id = ctx.req.params.id;
  if (typeof id !== 'string' || !isId(id)) throw notFound();
  return id;
}
