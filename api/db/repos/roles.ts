import type { Db } from '../connection.js';
import type { UserRole } from './users.js';

/** A row of `user_roles`: a custom role. */
export interface CustomRoleRow {
  id: string;
  name: string;
  color: string;
  /** The permission flags as given (everyone's are added when applied). */
  permissions: number;
  highlighted: number;
  position: number;
  created_at: number;
  updated_at: number;
}

/** The fields of a new custom role (its id is counted up by the database). */
export type NewCustomRole = Omit<CustomRoleRow, 'id'>;

/** Every custom role, highest position first, then oldest first. */
export function listCustomRoles(db: Db): CustomRoleRow[] {
  return db.query<CustomRoleRow>('SELECT * FROM user_roles ORDER BY position DESC, id').all();
}

/** One custom role by id. */
export function findCustomRole(db: Db, id: string): CustomRoleRow | undefined {
  return db.query<CustomRoleRow>('SELECT * FROM user_roles WHERE id = ?').get(id);
}

/** Custom roles by id, keyed by id. */
export function findCustomRolesByIds(db: Db, ids: readonly string[]): Map<string, CustomRoleRow> {
  const out = new Map<string, CustomRoleRow>();
  if (ids.length === 0) return out;
  const rows = db.query<CustomRoleRow>('SELECT * FROM user_roles WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))').all(JSON.stringify([...new Set(ids)]));
  for (const row of rows) out.set(row.id, row);
  return out;
}

/** A custom role by name, case-insensitively (names are unique that way). */
export function findCustomRoleByName(db: Db, name: string): CustomRoleRow | undefined {
  return db.query<CustomRoleRow>('SELECT * FROM user_roles WHERE lower(name) = lower(?)').get(name);
}

/** Inserts a custom role; returns its new id. */
export function insertCustomRole(db: Db, role: NewCustomRole): string {
  const row = db
    .query<{ id: string }>(
      `INSERT INTO user_roles (name, color, permissions, highlighted, position, created_at, updated_at)
       VALUES (@name, @color, @permissions, @highlighted, @position, @created_at, @updated_at) RETURNING id`,
    )
    .get({ ...role });
  if (!row) throw new Error('user_roles: insert returned no id');
  return String(row.id);
}

/** Updates the given columns of a custom role. */
export function updateCustomRole(db: Db, id: string, changes: Partial<Omit<CustomRoleRow, 'id' | 'created_at'>>): void {
  const keys = Object.keys(changes).filter((k) => changes[k as keyof typeof changes] !== undefined);
  if (keys.length === 0) return;
  db.query(`UPDATE user_roles SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({
    ...Object.fromEntries(keys.map((k) => [k, changes[k as keyof typeof changes] as string | number])),
    id,
  });
}

/** Deletes a custom role (its users fall back to the plain user role); true when it existed. */
export function deleteCustomRole(db: Db, id: string): boolean {
  return db.query('DELETE FROM user_roles WHERE id = ?').run(id).changes > 0;
}

/** Gives a user a role: a built-in one (custom role cleared) or a custom one (built-in set to 'user'). */
export function setUserRole(db: Db, userId: string, role: { builtIn: UserRole } | { customId: string }, at: number): void {
  if ('builtIn' in role) {
    db.query('UPDATE users SET role = @role, role_id = NULL, updated_at = @at WHERE id = @id').run({ role: role.builtIn, at, id: userId });
  } else {
    db.query("UPDATE users SET role = 'user', role_id = @role_id, updated_at = @at WHERE id = @id").run({ role_id: role.customId, at, id: userId });
  }
}

/** The accounts of the users holding a custom role. */
export function accountIdsWithCustomRole(db: Db, roleId: string): string[] {
  return db
    .query<{ account_id: string }>('SELECT account_id FROM users WHERE role_id = ?')
    .all(roleId)
    .map((r) => r.account_id);
}

/** How many users hold a built-in role (and no custom one). */
export function countUsersWithBuiltInRole(db: Db, role: UserRole): number {
  return db.query<{ n: number }>('SELECT count(*) AS n FROM users WHERE role = ? AND role_id IS NULL').get(role)?.n ?? 0;
}

/** How many users hold a custom role. */
export function countUsersWithCustomRole(db: Db, roleId: string): number {
  return db.query<{ n: number }>('SELECT count(*) AS n FROM users WHERE role_id = ?').get(roleId)?.n ?? 0;
}

/**
 * An SQL condition (no leading AND) true for the users row `alias` whose role holds a permission:
 * a built-in role among `builtIn` (those holding it, as core computes them), or a custom role whose
 * flags, with everyone's (`everyone`), include it or the administrator flag. Binds nothing.
 */
export function userHoldsPermissionSql(alias: string, builtIn: readonly UserRole[], permission: number, everyone: number): string {
  const names = builtIn.length > 0 ? builtIn.map((r) => `'${r}'`).join(', ') : "''";
  const p = Math.trunc(permission);
  return `((${alias}.role_id IS NULL AND ${alias}.role IN (${names}))
    OR EXISTS (SELECT 1 FROM user_roles xr WHERE xr.id = ${alias}.role_id
      AND (((xr.permissions | ${Math.trunc(everyone)}) & 1) = 1 OR ((xr.permissions | ${Math.trunc(everyone)}) & ${p}) = ${p})))`;
}

/**
 * Accounts of the users whose role holds a permission (see `userHoldsPermissionSql`), whose login
 * is enabled and approved, oldest user first: who is told of sign-ups or reports.
 */
export function accountIdsHoldingPermission(db: Db, builtIn: readonly UserRole[], permission: number, everyone: number): string[] {
  return db
    .query<{ account_id: string }>(
      `SELECT u.account_id FROM users u WHERE ${userHoldsPermissionSql('u', builtIn, permission, everyone)}
       AND u.disabled = 0 AND u.approved = 1 ORDER BY u.id`,
    )
    .all()
    .map((r) => r.account_id);
}
