import type { AccountRow } from '../../db/repos/accounts.js';
import { findUserByAccountId } from '../../db/repos/users.js';
import { badRequest, forbidden } from '../../util/errors.js';
import { PERMISSION } from '../../util/permissions.js';
import type { Deps } from '../deps.js';
import { requirePermission } from '../roles/access.js';
import { assignRole } from '../roles/assign.js';
import { findRole } from '../roles/manage.js';
import { findAdminTarget, type AdminActor } from './accounts.js';

/**
 * Gives an account's user a role (Hearth's POST /api/v1/admin/accounts/:id/role; Mastodon does it
 * in its web admin): needs "Manage Roles" (checked before anything is looked up), then the rules of
 * `assignRole` (only below one's own role, never one's own). A missing `role_id` is 400, an unknown
 * account or role 404, a remote account (no user, no role) 403.
 */
export function assignAccountRole(deps: Deps, actor: AdminActor, accountId: string, roleId: string): AccountRow {
  requirePermission(deps, actor.user, PERMISSION.manageRoles);
  if (!roleId.trim()) throw badRequest('Missing required parameter: role_id');
  const account = findAdminTarget(deps, accountId);
  const role = findRole(deps, roleId.trim());
  const user = account.domain === null ? findUserByAccountId(deps.db, account.id) : undefined;
  if (!user) throw forbidden();
  assignRole(deps, actor.user, user, role);
  return account;
}
