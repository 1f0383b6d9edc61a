import { findAccountByHandle } from '../../db/repos/accounts.js';
import { findUserByAccountId, updateUser, type UserRole } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import { ApiError } from '../../util/errors.js';
import { hashPasswordAsync } from '../../util/passwords.js';
import type { Deps } from '../deps.js';
import { BUILT_IN_ROLES } from '../../util/permissions.js';
import { assignRole } from '../roles/assign.js';
import { validatePassword } from './create.js';

/** One line of `hearth account list`. */
export interface UserSummary {
  userId: string;
  accountId: string;
  username: string;
  email: string | null;
  role: UserRole;
  approved: boolean;
  disabled: boolean;
}

/** Every local user, oldest first. */
export function listUsers(deps: Deps): UserSummary[] {
  return deps.db
    .query<{ user_id: string; account_id: string; username: string; email: string | null; role: UserRole; approved: number; disabled: number }>(
      `SELECT users.id AS user_id, accounts.id AS account_id, accounts.username, users.email, users.role, users.approved, users.disabled
       FROM users JOIN accounts ON accounts.id = users.account_id ORDER BY users.id`,
    )
    .all()
    .map((r) => ({ userId: r.user_id, accountId: r.account_id, username: r.username, email: r.email, role: r.role, approved: r.approved === 1, disabled: r.disabled === 1 }));
}

function userByUsername(deps: Deps, username: string) {
  const account = findAccountByHandle(deps.db, username, null);
  const user = account ? findUserByAccountId(deps.db, account.id) : undefined;
  if (!user) throw new ApiError(404, `no such user: ${username}`);
  return user;
}

/** Sets a user's password (administrative: no old password needed), hashed off the event loop. */
export async function changePassword(deps: Deps, username: string, password: string): Promise<void> {
  validatePassword(password);
  const user = userByUsername(deps, username);
  const hash = await hashPasswordAsync(password);
  updateUser(deps.db, user.id, { password_hash: hash, updated_at: now() });
}

/** Promotes or demotes a user to a built-in role (the rules of core/roles/assign.ts; a custom role is cleared). */
export function changeRole(deps: Deps, username: string, role: UserRole): void {
  assignRole(deps, null, userByUsername(deps, username), BUILT_IN_ROLES[role]);
}
