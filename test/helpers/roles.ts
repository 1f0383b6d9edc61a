import { createRole } from '../../api/core/roles/manage.js';
import { setUserRole } from '../../api/db/repos/roles.js';
import type { UserRole } from '../../api/db/repos/users.js';
import type { TestInstance, TestUser } from './instance.js';

/** Scopes of a staff member's token in tests: the usual ones and the admin ones. */
export const STAFF_SCOPES = 'read write follow push admin:read admin:write';

/** A role to give a test user: a built-in one by name, or a custom role by id. */
export type TestRole = UserRole | { customRoleId: string };

/**
 * Creates a local user holding a role (built-in, or a custom role made with `createCustomRole`),
 * with a token carrying `scopes` (default: STAFF_SCOPES, so the admin API is reachable).
 */
export async function createUserWithRole(inst: TestInstance, username: string, role: TestRole, options: { scopes?: string; email?: string } = {}): Promise<TestUser> {
  const scopes = options.scopes ?? STAFF_SCOPES;
  const base = { scopes, ...(options.email ? { email: options.email } : {}) };
  if (typeof role === 'string') return inst.createUser(username, { ...base, role });
  const user = await inst.createUser(username, base);
  setUserRole(inst.deps.db, user.userId, { customId: role.customRoleId }, Date.now());
  return user;
}

/** Makes a custom role directly (as the command line does) and returns its id. */
export function createCustomRole(
  inst: TestInstance,
  fields: { name: string; permissions: number; position?: number; highlighted?: boolean; color?: string },
): string {
  return createRole(inst.deps, null, { position: 5, ...fields }).id;
}

/**
 * The cast of an authorization test: an owner, an admin, a moderator and a plain user, each with
 * STAFF_SCOPES (the user too: what refuses them is their role, not their token). Usernames are
 * prefixed with `prefix` so several casts can share an instance.
 */
export async function createStaff(inst: TestInstance, prefix = ''): Promise<Record<'owner' | 'admin' | 'moderator' | 'user', TestUser>> {
  return {
    owner: await createUserWithRole(inst, `${prefix}owner`, 'owner'),
    admin: await createUserWithRole(inst, `${prefix}admin`, 'admin'),
    moderator: await createUserWithRole(inst, `${prefix}moderator`, 'moderator'),
    user: await createUserWithRole(inst, `${prefix}user`, 'user'),
  };
}
