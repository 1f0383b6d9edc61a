import type { UserRole } from '../db/repos/users.js';
import { BUILT_IN_ROLES, type RoleDefinition } from '../util/permissions.js';

/** Mastodon's Role entity: the complete role of the signed-in user (CredentialAccount `role`). */
export interface Role {
  id: string;
  name: string;
  /** Hex colour of the badge, or '' when none. */
  color: string;
  /** Bitmask of permission flags, as a decimal string. */
  permissions: string;
  /** Whether the role is shown as a badge on profiles. */
  highlighted: boolean;
}

/** The public part of a highlighted role, as listed in Account `roles`. */
export interface AccountRole {
  id: string;
  name: string;
  color: string;
}

function definition(role: UserRole | RoleDefinition): RoleDefinition {
  return typeof role === 'string' ? BUILT_IN_ROLES[role] : role;
}

/** The Role entity of a role (built-in by name, or any role definition, custom ones included). */
export function toMastodonRole(role: UserRole | RoleDefinition): Role {
  const r = definition(role);
  return { id: r.id, name: r.name, color: r.color, permissions: String(r.permissions), highlighted: r.highlighted };
}

/** The badges an account shows: its user's role when that role is highlighted, else none. */
export function toMastodonAccountRoles(role: UserRole | RoleDefinition | null): AccountRole[] {
  if (role === null) return [];
  const r = definition(role);
  return r.highlighted ? [{ id: r.id, name: r.name, color: r.color }] : [];
}

/** A role as Hearth's own admin roles method lists it: the Role entity with its position. */
export interface AdminRole extends Role {
  /** Higher ranks above lower; staff act on roles below their own. The owner's is 1000. */
  position: number;
}

/** The AdminRole of a role. */
export function toMastodonAdminRole(role: RoleDefinition): AdminRole {
  return { ...toMastodonRole(role), position: role.position };
}
