import type { UserRole } from '../../db/repos/users.js';
import { forbidden } from '../../util/errors.js';
import { roleHas } from '../../util/permissions.js';

/**
 * Whether a user's role holds a permission (one of `PERMISSION` in util/permissions.ts). This is
 * the one place that decides what a staff member may do; custom roles plug in here.
 */
export function userHas(user: { role: UserRole }, permission: number): boolean {
  return roleHas(user.role, permission);
}

/** Refuses, with Mastodon's 403 text, a user whose role lacks the permission. */
export function requirePermission(user: { role: UserRole }, permission: number): void {
  if (!userHas(user, permission)) throw forbidden('This action is not allowed');
}
