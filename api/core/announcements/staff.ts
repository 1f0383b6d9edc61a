import { forbidden } from '../../util/errors.js';
import { PERMISSION } from '../../util/permissions.js';
import { userHas, type RoleHolder, type RoleSource } from '../roles/access.js';

/**
 * Who may create, edit, publish and delete announcements: a role with Mastodon's "Manage
 * Announcements" permission (the built-in owner and admin roles hold it, and custom roles may).
 * This is the one place that decides it.
 */
export function canManageAnnouncements(deps: RoleSource, user: RoleHolder): boolean {
  return userHas(deps, user, PERMISSION.manageAnnouncements);
}

/** Refuses (403, Mastodon's message) a user who may not manage announcements. */
export function requireAnnouncementManager(deps: RoleSource, user: RoleHolder): void {
  if (!canManageAnnouncements(deps, user)) throw forbidden('This action is not allowed');
}
