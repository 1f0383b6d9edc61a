import type { Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';
import type { UserRole } from './users.js';

/** Account states the admin listing filters by (Mastodon's AccountFilter `status`). */
export type AdminAccountStatus = 'active' | 'pending' | 'disabled' | 'silenced' | 'suspended' | 'sensitized';

/**
 * The admin account listing's filters, as core resolved them. Text filters match the start of the
 * value, case-insensitively (Mastodon's `matches_*` scopes); `accountIds` restricts to a set
 * found beforehand (addresses); `staffSql` is a condition over the users row `u` built by core.
 */
export interface AdminAccountQuery {
  origin?: 'local' | 'remote' | undefined;
  domain?: string | undefined;
  status?: AdminAccountStatus | undefined;
  staffSql?: string | undefined;
  roles?: { builtIn: UserRole[]; custom: string[] } | undefined;
  invitedByAccountId?: string | undefined;
  username?: string | undefined;
  displayName?: string | undefined;
  email?: string | undefined;
  accountIds?: readonly string[] | undefined;
}

function likePrefix(value: string): string {
  return `${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const STATUS_SQL: Record<AdminAccountStatus, string> = {
  active: 'a.suspended_at IS NULL',
  pending: 'u.id IS NOT NULL AND u.approved = 0',
  disabled: 'u.id IS NOT NULL AND u.disabled = 1 AND a.suspended_at IS NULL',
  silenced: 'a.silenced_at IS NOT NULL',
  suspended: 'a.suspended_at IS NOT NULL',
  sensitized: 'a.sensitized_at IS NOT NULL',
};

/** One page of account ids matching the filters, newest account first (keyset on the id). */
export function adminAccountIds(db: Db, q: AdminAccountQuery, page: PageBounds): string[] {
  const where: string[] = [];
  const params: Record<string, string | number | undefined> = {};
  if (q.origin === 'local') where.push('a.domain IS NULL');
  if (q.origin === 'remote') where.push('a.domain IS NOT NULL');
  if (q.domain !== undefined) {
    where.push('a.domain = @domain');
    params.domain = q.domain;
  }
  if (q.status) where.push(STATUS_SQL[q.status]);
  if (q.staffSql) where.push(`u.id IS NOT NULL AND ${q.staffSql}`);
  if (q.roles) {
    const parts: string[] = [];
    if (q.roles.builtIn.length > 0) parts.push(`(u.role_id IS NULL AND u.role IN (SELECT value FROM json_each(@role_names)))`);
    if (q.roles.custom.length > 0) parts.push('u.role_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@role_ids))');
    where.push(parts.length > 0 ? `u.id IS NOT NULL AND (${parts.join(' OR ')})` : '0');
    params.role_names = JSON.stringify(q.roles.builtIn);
    params.role_ids = JSON.stringify(q.roles.custom);
  }
  if (q.invitedByAccountId !== undefined) {
    where.push('EXISTS (SELECT 1 FROM invites i JOIN users iu ON iu.id = i.user_id WHERE i.id = u.invite_id AND iu.account_id = @invited_by_account_id)');
    params.invited_by_account_id = q.invitedByAccountId;
  }
  if (q.username !== undefined) {
    where.push("a.username LIKE @username ESCAPE '\\'");
    params.username = likePrefix(q.username);
  }
  if (q.displayName !== undefined) {
    where.push("a.display_name LIKE @display_name ESCAPE '\\'");
    params.display_name = likePrefix(q.displayName);
  }
  if (q.email !== undefined) {
    where.push("u.email LIKE @email ESCAPE '\\'");
    params.email = likePrefix(q.email);
  }
  if (q.accountIds !== undefined) {
    where.push('a.id IN (SELECT CAST(value AS INTEGER) FROM json_each(@account_ids))');
    params.account_ids = JSON.stringify(q.accountIds);
  }
  const p = pageSql('a.id', page);
  const ids = db
    .query<{ id: string }>(
      `SELECT a.id FROM accounts a LEFT JOIN users u ON u.account_id = a.id
       WHERE 1 ${where.map((w) => `AND (${w})`).join(' ')} ${p.where} ${p.orderLimit}`,
    )
    .all({ ...params, ...p.params })
    .map((r) => r.id);
  return p.reverse ? ids.reverse() : ids;
}

/** An address a user used, and when last. */
export interface UserIpRow {
  user_id: string;
  ip: string;
  used_at: number;
}

/**
 * The addresses of the given users, most recently used first per user: their sign-in addresses
 * and their sign-up address (at the time of sign-up), each address once with its latest use.
 */
export function userIpsOf(db: Db, userIds: readonly string[]): UserIpRow[] {
  if (userIds.length === 0) return [];
  return db
    .query<UserIpRow>(
      `SELECT user_id, ip, max(used_at) AS used_at FROM (
         SELECT user_id, ip, used_at FROM user_ips WHERE user_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))
         UNION ALL
         SELECT id AS user_id, sign_up_ip AS ip, created_at AS used_at FROM users
           WHERE sign_up_ip IS NOT NULL AND sign_up_ip <> '' AND id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))
       ) GROUP BY user_id, ip ORDER BY user_id, used_at DESC`,
    )
    .all({ ids: JSON.stringify([...new Set(userIds)]) });
}

/** Every known address with its user's account, for the `ip` filter (compared by core). */
export function allUserIps(db: Db): { account_id: string; ip: string }[] {
  return db.query<{ account_id: string; ip: string }>(
    `SELECT u.account_id, x.ip FROM (
       SELECT user_id, ip FROM user_ips
       UNION SELECT id, sign_up_ip FROM users WHERE sign_up_ip IS NOT NULL AND sign_up_ip <> ''
     ) x JOIN users u ON u.id = x.user_id`,
  ).all();
}

/** Records that a user used an address now (sign-in). */
export function recordUserIp(db: Db, userId: string, ip: string, at: number): void {
  db.query(
    `INSERT INTO user_ips (user_id, ip, used_at) VALUES (@user_id, @ip, @at)
     ON CONFLICT (user_id, ip) DO UPDATE SET used_at = max(used_at, excluded.used_at)`,
  ).run({ user_id: userId, ip, at });
}

/** The account of each given user's inviter, keyed by user id (users without an invite left out). */
export function inviterAccountIds(db: Db, userIds: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (userIds.length === 0) return out;
  const rows = db
    .query<{ user_id: string; inviter_account_id: string }>(
      `SELECT u.id AS user_id, iu.account_id AS inviter_account_id FROM users u
       JOIN invites i ON i.id = u.invite_id JOIN users iu ON iu.id = i.user_id
       WHERE u.id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))`,
    )
    .all(JSON.stringify([...new Set(userIds)]));
  for (const r of rows) out.set(r.user_id, r.inviter_account_id);
  return out;
}

/** A row of `account_warnings`. */
export interface AccountWarningRow {
  id: string;
  account_id: string | null;
  target_account_id: string;
  action: 'none' | 'disable' | 'sensitive' | 'silence' | 'suspend';
  text: string;
  report_id: string | null;
  /** JSON array of status ids, or null. */
  status_ids: string | null;
  created_at: number;
}

/** Inserts a moderation warning (strike). */
export function insertAccountWarning(db: Db, row: AccountWarningRow): void {
  db.query(
    `INSERT INTO account_warnings (id, account_id, target_account_id, action, text, report_id, status_ids, created_at)
     VALUES (@id, @account_id, @target_account_id, @action, @text, @report_id, @status_ids, @created_at)`,
  ).run({ ...row });
}

/** Warnings by id (unknown ids left out). */
export function findAccountWarningsByIds(db: Db, ids: readonly string[]): Map<string, AccountWarningRow> {
  if (ids.length === 0) return new Map();
  const rows = db
    .query<AccountWarningRow>('SELECT * FROM account_warnings WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))')
    .all({ ids: JSON.stringify([...new Set(ids)]) });
  return new Map(rows.map((r) => [r.id, r]));
}

/** The warnings against an account, newest first. */
export function accountWarningsOf(db: Db, targetAccountId: string): AccountWarningRow[] {
  return db.query<AccountWarningRow>('SELECT * FROM account_warnings WHERE target_account_id = ? ORDER BY id DESC').all(targetAccountId);
}

/**
 * Marks reports resolved by a moderator: the given ones, or (with `targetAccountId`) every
 * unresolved report about that account. Returns the ids resolved.
 */
export function resolveReports(db: Db, by: { reportIds?: readonly string[]; targetAccountId?: string }, moderatorAccountId: string, at: number): string[] {
  const where = by.targetAccountId !== undefined ? 'target_account_id = @target_account_id' : 'id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))';
  return db
    .query<{ id: string }>(
      `UPDATE reports SET action_taken_at = @at, action_taken_by_account_id = @moderator_account_id, updated_at = @at
       WHERE action_taken_at IS NULL AND ${where} RETURNING id`,
    )
    .all({ at, moderator_account_id: moderatorAccountId, target_account_id: by.targetAccountId, ids: JSON.stringify(by.reportIds ?? []) })
    .map((r) => r.id);
}

/**
 * Removes what references an account as deleting its row would (ON DELETE CASCADE rows go, SET
 * NULL references are cleared), read from the schema's foreign keys, but keeps the row itself and
 * the rows of the tables in `keep` (moderation records). Second-level references follow by the
 * database's own cascades.
 */
export function purgeAccountDependents(db: Db, accountId: string, keep: readonly string[]): void {
  const tables = db.query<{ name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all();
  for (const { name } of tables) {
    if (name === 'accounts' || keep.includes(name)) continue;
    const keys = db
      .query<{ table: string; from: string; on_delete: string }>('SELECT "table", "from", on_delete FROM pragma_foreign_key_list(?)')
      .all(name)
      .filter((k) => k.table === 'accounts');
    for (const key of keys) {
      const table = `"${name.replace(/"/g, '""')}"`;
      const column = `"${key.from.replace(/"/g, '""')}"`;
      if (key.on_delete === 'CASCADE') db.query(`DELETE FROM ${table} WHERE ${column} = @account_id`).run({ account_id: accountId });
      else if (key.on_delete === 'SET NULL') db.query(`UPDATE ${table} SET ${column} = NULL WHERE ${column} = @account_id`).run({ account_id: accountId });
    }
  }
}

/** The local accounts an account follows or asked to follow. */
export function localAccountsFollowedBy(db: Db, accountId: string): string[] {
  return db
    .query<{ target_account_id: string }>(
      `SELECT f.target_account_id FROM follows f JOIN accounts a ON a.id = f.target_account_id WHERE f.account_id = @account_id AND a.domain IS NULL
       UNION SELECT r.target_account_id FROM follow_requests r JOIN accounts a ON a.id = r.target_account_id WHERE r.account_id = @account_id AND a.domain IS NULL`,
    )
    .all({ account_id: accountId })
    .map((r) => r.target_account_id);
}

/** Whether some report about the account still waits for action. */
export function hasUnresolvedReportsAbout(db: Db, targetAccountId: string): boolean {
  return db.query('SELECT 1 FROM reports WHERE target_account_id = @target_account_id AND action_taken_at IS NULL LIMIT 1').get({ target_account_id: targetAccountId }) !== undefined;
}
