import { createRole, deleteRole, findRole, listRoles, updateRole, type RoleInput } from '../../core/roles/manage.js';
import { toMastodonAdminRole } from '../../serializers/role.js';
import { PERMISSION } from '../../util/permissions.js';
import { bool, int, parse, str, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';
import { requireStaff, type StaffUser } from './staff.js';

const fieldsSchema = z.object({
  name: str(1000),
  color: str(100),
  permissions: int(0),
  highlighted: bool(),
  position: int(),
});

/**
 * The staff member calling, once their role may manage roles (before any parameter is read). As
 * every admin method (see http/admin/staff.ts): `public` routes with their scopes, and Mastodon's
 * 403 for whoever is not a signed-in, usable user with the permission, without a token too.
 */
function manager(ctx: Ctx): StaffUser {
  return requireStaff(ctx, PERMISSION.manageRoles).user;
}

function fields(ctx: Ctx): RoleInput {
  const p = parse(fieldsSchema, ctx.input);
  return { name: p.name, color: p.color, permissions: p.permissions, highlighted: p.highlighted, position: p.position };
}

function pathId(ctx: Ctx): string {
  return String(ctx.req.params.id ?? '');
}

/**
 * Roles for the staff (Hearth's own admin methods, for its UI: Mastodon manages roles in its web
 * admin only): list the built-in and custom roles, create, change and delete custom ones. Each
 * needs "Manage Roles"; a staff member only makes or changes roles below their own, with
 * permissions they hold (core/roles/manage.ts). The entity is the Role with its `position`.
 */
export function register(r: Routes): void {
  r.get('/api/v1/admin/roles', 'public', ['admin:read'], (ctx) => {
    manager(ctx);
    return listRoles(ctx.deps).map(toMastodonAdminRole);
  });
  r.get('/api/v1/admin/roles/:id', 'public', ['admin:read'], (ctx) => {
    manager(ctx);
    return toMastodonAdminRole(findRole(ctx.deps, pathId(ctx)));
  });
  r.post('/api/v1/admin/roles', 'public', ['admin:write'], (ctx) => {
    const user = manager(ctx);
    return toMastodonAdminRole(createRole(ctx.deps, user, fields(ctx)));
  });
  r.put('/api/v1/admin/roles/:id', 'public', ['admin:write'], (ctx) => {
    const user = manager(ctx);
    return toMastodonAdminRole(updateRole(ctx.deps, user, pathId(ctx), fields(ctx)));
  });
  r.delete('/api/v1/admin/roles/:id', 'public', ['admin:write'], (ctx) => {
    deleteRole(ctx.deps, manager(ctx), pathId(ctx));
    return {};
  });
}
