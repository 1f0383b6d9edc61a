import type { Db } from '../../db/connection.js';
import { accountIdsHoldingPermission, findCustomRole, findCustomRolesByIds, userHoldsPermissionSql, type CustomRoleRow } from '../../db/repos/roles.js';
import type { UserRole } from '../../db/repos/users.js';
import { forbidden } from '../../util/errors.js';
import { BUILT_IN_ROLES, builtInRolesWith, EVERYONE_PERMISSIONS, permissionsAllow, type RoleDefinition } from '../../util/permissions.js';

/** What decides a user's role: the built-in `role`, replaced by the custom `role_id` when set. */
export interface RoleHolder {
  role: UserRole;
  role_id?: string | null | undefined;
}

/** Where roles are read from: any `Deps` will do. */
export interface RoleSource {
  readonly db: Db;
}

/** A custom role as it applies: its flags with everyone's added (Mastodon's computed permissions). */
export function customRoleDefinition(row: CustomRoleRow): RoleDefinition {
  return {
    id: String(row.id),
    name: row.name,
    color: row.color,
    permissions: row.permissions | EVERYONE_PERMISSIONS,
    highlighted: row.highlighted === 1,
    position: row.position,
    builtIn: null,
  };
}

/**
 * The role a user holds: their custom role when they have one, else their built-in role. A custom
 * role deleted meanwhile leaves the plain user role (the database clears role_id the same way).
 */
export function roleOf(deps: RoleSource, user: RoleHolder): RoleDefinition {
  if (user.role_id) {
    const row = findCustomRole(deps.db, user.role_id);
    return row ? customRoleDefinition(row) : BUILT_IN_ROLES.user;
  }
  return BUILT_IN_ROLES[user.role];
}

/** The roles of many users in one query, in the order given. */
export function rolesOf(deps: RoleSource, users: readonly RoleHolder[]): RoleDefinition[] {
  const custom = findCustomRolesByIds(deps.db, users.flatMap((u) => (u.role_id ? [u.role_id] : [])));
  return users.map((u) => {
    if (!u.role_id) return BUILT_IN_ROLES[u.role];
    const row = custom.get(u.role_id);
    return row ? customRoleDefinition(row) : BUILT_IN_ROLES.user;
  });
}

/**
 * Whether a user's role holds a permission (one of `PERMISSION` in util/permissions.ts; the
 * administrator flag holds them all). This is the one place that decides what a staff member may
 * do, built-in and custom roles alike.
 */
export function userHas(deps: RoleSource, user: RoleHolder, permission: number): boolean {
  return permissionsAllow(roleOf(deps, user).permissions, permission);
}

/** Refuses, with Mastodon's 403 text, a user whose role lacks the permission. */
export function requirePermission(deps: RoleSource, user: RoleHolder, permission: number): void {
  if (!userHas(deps, user, permission)) throw forbidden('This action is not allowed');
}

/** Refuses (403) a user whose role holds none of the permissions (Mastodon's `can?(a, b)`). */
export function requireAnyPermission(deps: RoleSource, user: RoleHolder, permissions: readonly number[]): void {
  const granted = roleOf(deps, user).permissions;
  if (!permissions.some((p) => permissionsAllow(granted, p))) throw forbidden('This action is not allowed');
}

/**
 * An SQL condition (no leading AND) true for the users row `alias` whose role holds the
 * permission, for listings such as the admin API's `staff` filter.
 */
export function holdsPermissionSql(alias: string, permission: number): string {
  return userHoldsPermissionSql(alias, builtInRolesWith(permission), permission, EVERYONE_PERMISSIONS);
}

/**
 * The accounts of the users (enabled, approved) whose role holds a permission, oldest user first:
 * the staff to tell of new sign-ups (manage users) or reports (manage reports), custom roles
 * included.
 */
export function accountIdsWithPermission(deps: RoleSource, permission: number): string[] {
  return accountIdsHoldingPermission(deps.db, builtInRolesWith(permission), permission, EVERYONE_PERMISSIONS);
}
