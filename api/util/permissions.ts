import type { UserRole } from '../db/repos/users.js';

/** Mastodon's permission flags (see entities/Role.md). */
export const PERMISSION = {
  administrator: 0x1,
  devops: 0x2,
  viewAuditLog: 0x4,
  viewDashboard: 0x8,
  manageReports: 0x10,
  manageFederation: 0x20,
  manageSettings: 0x40,
  manageBlocks: 0x80,
  manageTaxonomies: 0x100,
  manageAppeals: 0x200,
  manageUsers: 0x400,
  manageInvites: 0x800,
  manageRules: 0x1000,
  manageAnnouncements: 0x2000,
  manageCustomEmojis: 0x4000,
  manageWebhooks: 0x8000,
  inviteUsers: 0x10000,
  manageRoles: 0x20000,
  manageUserAccess: 0x40000,
  deleteUserData: 0x80000,
  viewFeeds: 0x100000,
} as const;

/** Every permission flag at once. */
export const ALL_PERMISSIONS = Object.values(PERMISSION).reduce((sum, flag) => sum | flag, 0);

/**
 * What everyone may do whatever their role (Mastodon's `@everyone` role): invite users. A custom
 * role's permissions are always computed with these added, as Mastodon's `computed_permissions`.
 */
export const EVERYONE_PERMISSIONS = PERMISSION.inviteUsers;

/**
 * A role as the server applies it: a built-in one (`builtIn` names it) or a custom one made by the
 * owner (`builtIn` null). `permissions` are the computed ones (everyone's included); `position`
 * orders roles: a staff member acts only on roles below their own.
 */
export interface RoleDefinition {
  id: string;
  name: string;
  color: string;
  permissions: number;
  highlighted: boolean;
  position: number;
  builtIn: UserRole | null;
}

/** The owner's position: above every other role, built-in or custom (custom ones stay below it). */
export const OWNER_POSITION = 1000;

/**
 * The fixed roles of this server, with Mastodon's ids and positions for its built-in roles
 * (everyone is -99 at position -1). Every role includes what everyone may do (invite users), as
 * Mastodon computes permissions.
 */
export const BUILT_IN_ROLES: Record<UserRole, RoleDefinition> = {
  owner: { id: '3', name: 'Owner', color: '#d64541', permissions: ALL_PERMISSIONS, highlighted: true, position: OWNER_POSITION, builtIn: 'owner' },
  // Everything but the administrator bypass and the server dashboards.
  admin: {
    id: '2',
    name: 'Admin',
    color: '#e67e22',
    permissions: ALL_PERMISSIONS & ~PERMISSION.administrator & ~PERMISSION.devops,
    highlighted: true,
    position: 100,
    builtIn: 'admin',
  },
  moderator: {
    id: '1',
    name: 'Moderator',
    color: '#2980b9',
    permissions:
      PERMISSION.viewAuditLog | PERMISSION.viewDashboard | PERMISSION.manageReports | PERMISSION.manageTaxonomies | PERMISSION.manageUsers | PERMISSION.inviteUsers,
    highlighted: true,
    position: 10,
    builtIn: 'moderator',
  },
  user: { id: '-99', name: '', color: '', permissions: EVERYONE_PERMISSIONS, highlighted: false, position: -1, builtIn: 'user' },
};

/** The built-in role with this id ('3', '2', '1', '-99'), if it is one. */
export function builtInRoleById(id: string): RoleDefinition | undefined {
  return Object.values(BUILT_IN_ROLES).find((r) => r.id === id);
}

/** True when a permission mask grants a permission (the administrator flag grants them all). */
export function permissionsAllow(granted: number, permission: number): boolean {
  return (granted & PERMISSION.administrator) !== 0 || (granted & permission) === permission;
}

/** True when a role holds a permission (the administrator flag holds them all). */
export function roleHas(role: UserRole | RoleDefinition, permission: number): boolean {
  const definition = typeof role === 'string' ? BUILT_IN_ROLES[role] : role;
  return permissionsAllow(definition.permissions, permission);
}

/** The built-in roles that hold a permission (for queries over `users.role`). */
export function builtInRolesWith(permission: number): UserRole[] {
  return (Object.keys(BUILT_IN_ROLES) as UserRole[]).filter((r) => roleHas(r, permission));
}

/**
 * Whether a role ranks above another, so that its holder may act on (or assign) the other: the
 * owner ranks above every role but the owner's; nobody else ranks above the owner; otherwise the
 * higher position wins (Mastodon's `overrides?`, with the owner on top of everything).
 */
export function roleOutranks(role: RoleDefinition, other: RoleDefinition): boolean {
  if (other.builtIn === 'owner') return false;
  if (role.builtIn === 'owner') return true;
  return role.position > other.position;
}
