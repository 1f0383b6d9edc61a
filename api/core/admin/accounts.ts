import { BlockList, isIP } from 'node:net';
import { domainToUnicode } from 'node:url';
import type { PageBounds } from '../../db/paging.js';
import { adminAccountIds, allUserIps, type AdminAccountQuery, type AdminAccountStatus } from '../../db/repos/admin-accounts.js';
import { findAccountById, findAccountsByIds, updateAccount, type AccountRow } from '../../db/repos/accounts.js';
import { deleteAccountRow } from '../../db/repos/deleted-actors.js';
import { findUserByAccountId, findUsersByAccountIds, updateUser, type UserRole, type UserRow } from '../../db/repos/users.js';
import type { AdminAccount } from '../../serializers/admin-account.js';
import { now } from '../../util/clock.js';
import { ApiError, forbidden, notFound } from '../../util/errors.js';
import { builtInRoleById, PERMISSION } from '../../util/permissions.js';
import type { Deps } from '../deps.js';
import { holdsPermissionSql, requirePermission } from '../roles/access.js';
import { remergeIntoFollowerHomes } from './accounts-effects.js';
import { presentAdminAccount } from './accounts-view.js';

/**
 * The admin accounts API's rules (Mastodon's Admin::AccountsController and its policies): who may
 * list and change accounts, and what each change does. Every function takes the staff member
 * acting (`actor`, the signed-in user) and checks their permission first.
 */

/** The staff member acting: the signed-in user and their account. */
export interface AdminActor {
  user: UserRow;
  account: AccountRow;
}

/** The listing filters (v2 names; v1's booleans are translated to these by the HTTP layer). */
export interface AdminAccountFilters {
  origin?: string | undefined;
  status?: string | undefined;
  permissions?: string | undefined;
  roleIds?: readonly string[] | undefined;
  invitedBy?: string | undefined;
  username?: string | undefined;
  displayName?: string | undefined;
  email?: string | undefined;
  ip?: string | undefined;
  byDomain?: string | undefined;
}

const STATUSES: readonly AdminAccountStatus[] = ['active', 'pending', 'disabled', 'silenced', 'suspended', 'sensitized'];

/** Mastodon's InvalidParameterError: 400 with its text. */
function unknown(what: string, value: string): ApiError {
  return new ApiError(400, `Unknown ${what}: ${value}`);
}

/** The account ids whose users used an address within `ip` (an address or a CIDR range). */
function accountIdsByIp(deps: Deps, ip: string): string[] {
  const [address, bits] = ip.trim().split('/');
  const family = isIP(address ?? '');
  if (!address || family === 0) return [];
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const list = new BlockList();
  const prefix = bits === undefined ? (family === 4 ? 32 : 128) : Number(bits);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) return [];
  list.addSubnet(address, prefix, type);
  const out = new Set<string>();
  for (const row of allUserIps(deps.db)) {
    const rowFamily = isIP(row.ip);
    if (rowFamily !== 0 && list.check(row.ip, rowFamily === 4 ? 'ipv4' : 'ipv6')) out.add(row.account_id);
  }
  return [...out];
}

/**
 * One page of accounts as staff see them (GET /api/v1/admin/accounts and /api/v2/…), newest first,
 * filtered as Mastodon's AccountFilter: origin local/remote, status, `staff` permissions (those
 * who may handle reports), roles, inviter, the start of the username, display name or e-mail, an
 * address (or range) used, the exact domain. An unknown origin, status or permissions value is a
 * 400 naming it. Needs "Manage Users".
 */
export function listAdminAccounts(deps: Deps, actor: AdminActor, filters: AdminAccountFilters, page: PageBounds): string[] {
  requirePermission(deps, actor.user, PERMISSION.manageUsers);
  const q: AdminAccountQuery = {};
  if (filters.origin !== undefined) {
    if (filters.origin !== 'local' && filters.origin !== 'remote') throw unknown('origin', filters.origin);
    q.origin = filters.origin;
  }
  if (filters.status !== undefined) {
    if (!STATUSES.includes(filters.status as AdminAccountStatus)) throw unknown('status', filters.status);
    q.status = filters.status as AdminAccountStatus;
  }
  if (filters.permissions !== undefined) {
    if (filters.permissions !== 'staff') throw unknown('permissions', filters.permissions);
    q.staffSql = holdsPermissionSql('u', PERMISSION.manageReports);
  }
  if (filters.roleIds !== undefined && filters.roleIds.length > 0) {
    const builtIn: UserRole[] = [];
    const custom: string[] = [];
    for (const id of filters.roleIds) {
      const role = builtInRoleById(id);
      if (role?.builtIn) builtIn.push(role.builtIn);
      else if (/^\d+$/.test(id)) custom.push(id);
    }
    q.roles = { builtIn, custom };
  }
  if (filters.invitedBy !== undefined) q.invitedByAccountId = filters.invitedBy;
  if (filters.username !== undefined) q.username = filters.username.trim();
  if (filters.displayName !== undefined) q.displayName = filters.displayName.trim();
  if (filters.email !== undefined) q.email = filters.email.trim();
  if (filters.byDomain !== undefined) {
    const domain = filters.byDomain.trim().toLowerCase();
    q.domain = domainToUnicode(domain) || domain;
  }
  if (filters.ip !== undefined) q.accountIds = accountIdsByIp(deps, filters.ip);
  return adminAccountIds(deps.db, q, page);
}

/** An account by id for staff, or 404 (after the permission check, so a user learns nothing). */
export function findAdminTarget(deps: Deps, id: string): AccountRow {
  const account = /^\d+$/.test(id) ? findAccountById(deps.db, id) : undefined;
  if (!account) throw notFound();
  return account;
}

/** GET /api/v1/admin/accounts/:id: the account, for staff who may manage users. */
export function getAdminAccount(deps: Deps, actor: AdminActor, id: string): AccountRow {
  requirePermission(deps, actor.user, PERMISSION.manageUsers);
  return findAdminTarget(deps, id);
}

/** The local user behind an account that is waiting for approval, or 403 (not pending, or remote). */
function pendingUser(deps: Deps, account: AccountRow): UserRow {
  const user = account.domain === null ? findUserByAccountId(deps.db, account.id) : undefined;
  if (!user || user.approved === 1) throw forbidden();
  return user;
}

/**
 * Approves a pending sign-up: the user may use the instance from now on. 403 when the account is
 * not waiting for approval. `actor` null: the command line (trusted). Emits 'user.approved'
 * (staff notification, mail, the `account.approved` webhook) and nothing else: Mastodon's approval
 * sends no `account.updated` webhook, and nothing the account shows or federates has changed.
 */
export function approveAccount(deps: Deps, actor: AdminActor | null, id: string): AccountRow {
  if (actor) requirePermission(deps, actor.user, PERMISSION.manageUsers);
  const account = findAdminTarget(deps, id);
  const user = pendingUser(deps, account);
  deps.db.transaction(() => updateUser(deps.db, user.id, { approved: 1, updated_at: now() }));
  deps.events.emit('user.approved', { userId: user.id, accountId: account.id });
  return account;
}

/**
 * Rejects a pending sign-up: the account and its user are deleted (Mastodon deletes them without
 * reserving the name or the address, so the person may try again). 403 when not pending. `actor`
 * null: the command line (trusted). Answers with the account as it was.
 */
export function rejectAccount(deps: Deps, actor: AdminActor | null, id: string): AdminAccount {
  if (actor) requirePermission(deps, actor.user, PERMISSION.manageUsers);
  const account = findAdminTarget(deps, id);
  pendingUser(deps, account);
  const before = presentAdminAccount(deps, account.id);
  // A pending user never published anything: the row goes with its user, tokens and the staff's
  // sign-up notifications (ON DELETE CASCADE).
  deps.db.transaction(() => deleteAccountRow(deps.db, account.id));
  return before;
}

/** Re-enables a disabled local login (a no-op when enabled). 403 for a remote account. */
export function enableAccount(deps: Deps, actor: AdminActor, id: string): AccountRow {
  requirePermission(deps, actor.user, PERMISSION.manageUsers);
  const account = findAdminTarget(deps, id);
  const user = account.domain === null ? findUserByAccountId(deps.db, account.id) : undefined;
  if (!user) throw forbidden();
  if (user.disabled === 1) {
    deps.db.transaction(() => updateUser(deps.db, user.id, { disabled: 0, updated_at: now() }));
    deps.events.emit('account.updated', { accountId: account.id });
  }
  return account;
}

/** Lifts a sensitive mark or a limit (a no-op when there is none), as Mastodon's unsensitive and unsilence. */
export function liftAccountFlag(deps: Deps, actor: AdminActor, id: string, flag: 'sensitized_at' | 'silenced_at'): AccountRow {
  requirePermission(deps, actor.user, PERMISSION.manageUsers);
  const account = findAdminTarget(deps, id);
  if (account[flag] !== null) {
    deps.db.transaction(() => updateAccount(deps.db, account.id, { [flag]: null, updated_at: now() }));
    deps.events.emit('account.updated', { accountId: account.id });
  }
  return account;
}

/**
 * Lifts a suspension: the account is back everywhere and its recent statuses return to its local
 * followers' home feeds. 403 when it is not suspended, or when its data was deleted (a local
 * account whose user is gone: nothing is left to restore).
 */
export function unsuspendAccount(deps: Deps, actor: AdminActor, id: string): AccountRow {
  requirePermission(deps, actor.user, PERMISSION.manageUsers);
  const account = findAdminTarget(deps, id);
  if (account.suspended_at === null) throw forbidden();
  if (account.domain === null && !findUserByAccountId(deps.db, account.id)) throw forbidden();
  deps.db.transaction(() => updateAccount(deps.db, account.id, { suspended_at: null, updated_at: now() }));
  remergeIntoFollowerHomes(deps, account.id);
  deps.events.emit('account.updated', { accountId: account.id });
  return account;
}

/** A sign-up waiting for approval, for `hearth accounts pending`. */
export interface PendingSignUp {
  accountId: string;
  username: string;
  email: string | null;
  reason: string | null;
  createdAt: number;
}

/** The sign-ups waiting for approval, oldest first. */
export function listPendingSignUps(deps: Deps): PendingSignUp[] {
  const ids = adminAccountIds(deps.db, { origin: 'local', status: 'pending' }, { limit: 10_000 }).reverse();
  const users = findUsersByAccountIds(deps.db, ids);
  const accounts = findAccountsByIds(deps.db, ids);
  return ids.flatMap((id) => {
    const account = accounts.get(id);
    const user = users.get(id);
    return account && user ? [{ accountId: id, username: account.username, email: user.email, reason: user.sign_up_reason, createdAt: user.created_at }] : [];
  });
}
