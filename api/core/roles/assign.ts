import { setUserRole } from '../../db/repos/roles.js';
import { countUsers, type UserRow } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import { forbidden, unprocessable } from '../../util/errors.js';
import { PERMISSION, roleOutranks, type RoleDefinition } from '../../util/permissions.js';
import type { Deps } from '../deps.js';
import { requirePermission, roleOf, type RoleHolder } from './access.js';

/**
 * Promotes or demotes a user: gives them a built-in or custom role. From the command line (`actor`
 * null) anything goes but removing the last owner. A staff member needs "Manage Roles", may not
 * change their own role, may only change the role of someone below them (403 otherwise), and may
 * only give a role below their own (422, Mastodon's text); the owner may give any role, the
 * owner's included. The instance always keeps an owner (422). Emits 'account.updated' (the badge
 * and the CredentialAccount role change).
 */
export function assignRole(deps: Deps, actor: (RoleHolder & { id: string }) | null, target: UserRow, role: RoleDefinition): void {
  const current = roleOf(deps, target);
  if (actor) {
    requirePermission(deps, actor, PERMISSION.manageRoles);
    const own = roleOf(deps, actor);
    if (actor.id === target.id || !roleOutranks(own, current)) throw forbidden();
    if (own.builtIn !== 'owner' && !roleOutranks(own, role)) {
      throw unprocessable('Validation failed: Role cannot be higher than your current role', {
        details: { role_id: [{ error: 'ERR_INVALID', description: 'cannot be higher than your current role' }] },
      });
    }
  }
  if (current.builtIn === 'owner' && role.builtIn !== 'owner' && countUsers(deps.db, 'owner') <= 1) {
    const description = 'cannot be changed: the instance needs an owner, and this is the only one';
    throw unprocessable(`Validation failed: Role ${description}`, { details: { role_id: [{ error: 'ERR_INVALID', description }] } });
  }
  deps.db.transaction(() => setUserRole(deps.db, target.id, role.builtIn ? { builtIn: role.builtIn } : { customId: role.id }, now()));
  deps.events.emit('account.updated', { accountId: target.account_id });
}
