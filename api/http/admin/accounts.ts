import {
  approveAccount,
  enableAccount,
  getAdminAccount,
  liftAccountFlag,
  listAdminAccounts,
  rejectAccount,
  unsuspendAccount,
  type AdminAccountFilters,
  type AdminActor,
} from '../../core/admin/accounts.js';
import { deleteAccountData, takeAccountAction } from '../../core/admin/accounts-action.js';
import { presentAdminAccount, presentAdminAccounts } from '../../core/admin/accounts-view.js';
import { assignAccountRole } from '../../core/admin/accounts-role.js';
import { requireAnyPermission } from '../../core/roles/access.js';
import { PERMISSION } from '../../util/permissions.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import { arrayOf, bool, parse, str, z } from '../params.js';
import { forbidden } from '../../util/errors.js';
import type { Ctx, Routes } from '../routes.js';

const READ = ['admin:read', 'admin:read:accounts'];
const WRITE = ['admin:write', 'admin:write:accounts'];

const text = () => str(1000);

/** v1's filters: booleans for origin, status and staff, as Mastodon's v1 controller translates them. */
const v1Schema = z.object({
  local: bool(),
  remote: bool(),
  active: bool(),
  pending: bool(),
  disabled: bool(),
  silenced: bool(),
  suspended: bool(),
  sensitized: bool(),
  staff: bool(),
  by_domain: text(),
  username: text(),
  display_name: text(),
  email: text(),
  ip: text(),
});

const v2Schema = z.object({
  origin: text(),
  status: text(),
  permissions: text(),
  role_ids: arrayOf(z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().max(32))),
  invited_by: text(),
  by_domain: text(),
  username: text(),
  display_name: text(),
  email: text(),
  ip: text(),
});

const actionSchema = z.object({
  type: text(),
  report_id: z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().max(32).optional()),
  warning_preset_id: z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().max(32).optional()),
  text: str(5000),
  send_email_notification: bool(),
});

const roleSchema = z.object({ role_id: z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().max(32).optional()) });

/** Empty strings are "not given", as Rails' blank parameters are for these filters. */
function given(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function v1Filters(input: Record<string, unknown>): AdminAccountFilters {
  const p = parse(v1Schema, input);
  const filters: AdminAccountFilters = {
    byDomain: given(p.by_domain),
    username: given(p.username),
    displayName: given(p.display_name),
    email: given(p.email),
    ip: given(p.ip),
  };
  if (p.local) filters.origin = 'local';
  if (p.remote) filters.origin = 'remote';
  // As Mastodon's v1 controller: the last of these given wins.
  for (const status of ['active', 'pending', 'disabled', 'silenced', 'suspended', 'sensitized'] as const) if (p[status]) filters.status = status;
  if (p.staff) filters.permissions = 'staff';
  return filters;
}

function v2Filters(input: Record<string, unknown>): AdminAccountFilters {
  const p = parse(v2Schema, input);
  return {
    origin: given(p.origin),
    status: given(p.status),
    permissions: given(p.permissions),
    roleIds: p.role_ids?.filter((id) => id.trim() !== ''),
    invitedBy: given(p.invited_by),
    byDomain: given(p.by_domain),
    username: given(p.username),
    displayName: given(p.display_name),
    email: given(p.email),
    ip: given(p.ip),
  };
}

/**
 * The staff member calling, once their role holds one of the permissions; before any parameter is
 * read. Admin routes are `public` with their scopes, as Mastodon's admin controllers authorize: a
 * given token must be valid (401) and carry the scope (403); then whoever is not a signed-in,
 * usable user with the permission, a request without a token included, gets Mastodon's 403.
 */
function staff(ctx: Ctx, ...permissions: number[]): AdminActor {
  const user = ctx.auth?.user;
  const account = ctx.auth?.account;
  if (!user || !account || user.confirmed_at === null || !user.approved) throw forbidden();
  requireAnyPermission(ctx.deps, user, permissions);
  return { user, account };
}

function list(ctx: Ctx, actor: AdminActor, filters: AdminAccountFilters) {
  const ids = listAdminAccounts(ctx.deps, actor, filters, parsePage(ctx.input, 100, 200));
  setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(ids, (id) => id));
  return presentAdminAccounts(ctx.deps, ids);
}

function pathId(ctx: Ctx): string {
  return String(ctx.req.params.id ?? '');
}

/**
 * The admin accounts API (Mastodon's admin/accounts methods): listing (v1 and v2 filters, pages
 * with Link headers), one account, approve and reject a pending sign-up, moderation actions, and
 * lifting them, deleting a suspended account's data. The caller's permission is checked here
 * before any parameter is read, and the rules in core (core/admin/accounts*.ts). Also Hearth's own method to give an account a role (Mastodon does it
 * in its web admin only): POST /api/v1/admin/accounts/:id/role with `role_id`.
 */
export function register(r: Routes): void {
  r.get('/api/v1/admin/accounts', 'public', READ, (ctx) => {
    const actor = staff(ctx, PERMISSION.manageUsers);
    return list(ctx, actor, v1Filters(ctx.input));
  });
  r.get('/api/v2/admin/accounts', 'public', READ, (ctx) => {
    const actor = staff(ctx, PERMISSION.manageUsers);
    return list(ctx, actor, v2Filters(ctx.input));
  });

  r.get('/api/v1/admin/accounts/:id', 'public', READ, (ctx) => presentAdminAccount(ctx.deps, getAdminAccount(ctx.deps, staff(ctx, PERMISSION.manageUsers), pathId(ctx)).id));

  r.post('/api/v1/admin/accounts/:id/approve', 'public', WRITE, (ctx) => presentAdminAccount(ctx.deps, approveAccount(ctx.deps, staff(ctx, PERMISSION.manageUsers), pathId(ctx)).id));
  r.post('/api/v1/admin/accounts/:id/reject', 'public', WRITE, (ctx) => rejectAccount(ctx.deps, staff(ctx, PERMISSION.manageUsers), pathId(ctx)));

  r.post('/api/v1/admin/accounts/:id/action', 'public', WRITE, (ctx) => {
    const actor = staff(ctx, PERMISSION.manageUsers, PERMISSION.manageReports);
    const p = parse(actionSchema, ctx.input);
    takeAccountAction(ctx.deps, actor, pathId(ctx), {
      type: p.type,
      reportId: given(p.report_id),
      warningPresetId: given(p.warning_preset_id),
      text: p.text,
      sendEmailNotification: p.send_email_notification,
    });
    return {};
  });

  r.post('/api/v1/admin/accounts/:id/enable', 'public', WRITE, (ctx) => presentAdminAccount(ctx.deps, enableAccount(ctx.deps, staff(ctx, PERMISSION.manageUsers), pathId(ctx)).id));
  r.post('/api/v1/admin/accounts/:id/unsensitive', 'public', WRITE, (ctx) =>
    presentAdminAccount(ctx.deps, liftAccountFlag(ctx.deps, staff(ctx, PERMISSION.manageUsers), pathId(ctx), 'sensitized_at').id),
  );
  r.post('/api/v1/admin/accounts/:id/unsilence', 'public', WRITE, (ctx) => presentAdminAccount(ctx.deps, liftAccountFlag(ctx.deps, staff(ctx, PERMISSION.manageUsers), pathId(ctx), 'silenced_at').id));
  r.post('/api/v1/admin/accounts/:id/unsuspend', 'public', WRITE, (ctx) => presentAdminAccount(ctx.deps, unsuspendAccount(ctx.deps, staff(ctx, PERMISSION.manageUsers), pathId(ctx)).id));

  r.delete('/api/v1/admin/accounts/:id', 'public', WRITE, (ctx) => deleteAccountData(ctx.deps, staff(ctx, PERMISSION.deleteUserData), pathId(ctx)));

  r.post('/api/v1/admin/accounts/:id/role', 'public', WRITE, (ctx) => {
    const actor = staff(ctx, PERMISSION.manageRoles);
    const p = parse(roleSchema, ctx.input);
    return presentAdminAccount(ctx.deps, assignAccountRole(ctx.deps, actor, pathId(ctx), p.role_id ?? '').id);
  });
}
