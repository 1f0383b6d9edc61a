import type { UserRole } from '../db/repos/users.js';
import { BUILT_IN_ROLES } from '../util/permissions.js';

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

/** The Role entity of a user role. */
export function toMastodonRole(role: UserRole): Role {
  const r = BUILT_IN_ROLES[role];
  return { id: r.id, name: r.name, color: r.color, permissions: String(r.permissions), highlighted: r.highlighted };
}

/** The badges an account shows: its user's role when that role is highlighted, else none. */
export function toMastodonAccountRoles(role: UserRole | null): AccountRole[] {
  if (role === null) return [];
  const r = BUILT_IN_ROLES[role];
  return r.highlighted ? [{ id: r.id, name: r.name, color: r.color }] : [];
}
