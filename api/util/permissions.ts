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

const ALL = Object.values(PERMISSION).reduce((sum, flag) => sum | flag, 0);

export interface RoleDefinition {
  id: string;
  name: string;
  color: string;
  permissions: number;
  highlighted: boolean;
}

/**
 * The fixed roles of this server, with Mastodon's ids for its built-in roles (everyone is -99).
 * Every role includes what everyone may do (invite users), as Mastodon computes permissions.
 */
export const BUILT_IN_ROLES: Record<UserRole, RoleDefinition> = {
  owner: { id: '3', name: 'Owner', color: '#d64541', permissions: ALL, highlighted: true },
  // Everything but the administrator bypass and the server dashboards.
  admin: { id: '2', name: 'Admin', color: '#e67e22', permissions: ALL & ~PERMISSION.administrator & ~PERMISSION.devops, highlighted: true },
  moderator: {
    id: '1',
    name: 'Moderator',
    color: '#2980b9',
    permissions:
      PERMISSION.viewAuditLog | PERMISSION.viewDashboard | PERMISSION.manageReports | PERMISSION.manageTaxonomies | PERMISSION.manageUsers | PERMISSION.inviteUsers,
    highlighted: true,
  },
  user: { id: '-99', name: '', color: '', permissions: PERMISSION.inviteUsers, highlighted: false },
};

/** True when a role holds a permission (the administrator flag holds them all). */
export function roleHas(role: UserRole, permission: number): boolean {
  const granted = BUILT_IN_ROLES[role].permissions;
  return (granted & PERMISSION.administrator) !== 0 || (granted & permission) === permission;
}

