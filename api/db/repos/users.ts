import type { Db } from '../connection.js';

/** The roles a user can hold; `owner` is the person the instance belongs to. */
export type UserRole = 'owner' | 'admin' | 'moderator' | 'user';

/** A row of `users`. */
export interface UserRow {
  id: string;
  account_id: string;
  email: string | null;
  password_hash: string;
  role: UserRole;
  locale: string | null;
  approved: number;
  disabled: number;
  confirmed_at: number | null;
  sign_up_reason: string | null;
  sign_up_ip: string | null;
  invite_id: string | null;
  settings: string;
  last_sign_in_at: number | null;
  created_at: number;
  updated_at: number;
  /** A custom role (user_roles) replacing the built-in `role` (then 'user'), or null. */
  role_id: string | null;
  /** The application the user signed up through, or null. */
  created_by_application_id: string | null;
}

/** Loads a user by id. */
export function findUserById(db: Db, id: string): UserRow | undefined {
  return db.query<UserRow>('SELECT * FROM users WHERE id = ?').get(id);
}

/** Loads the user that owns a local account. */
export function findUserByAccountId(db: Db, accountId: string): UserRow | undefined {
  return db.query<UserRow>('SELECT * FROM users WHERE account_id = ?').get(accountId);
}

/** Loads the users owning the given local accounts in one query; the result is keyed by account id. */
export function findUsersByAccountIds(db: Db, accountIds: readonly string[]): Map<string, UserRow> {
  const out = new Map<string, UserRow>();
  const unique = [...new Set(accountIds)];
  for (let i = 0; i < unique.length; i += 500) {
    const rows = db
      .query<UserRow>('SELECT * FROM users WHERE account_id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))')
      .all(JSON.stringify(unique.slice(i, i + 500)));
    for (const row of rows) out.set(row.account_id, row);
  }
  return out;
}

/** True when some user already signs in with this e-mail address (case-insensitive). */
export function emailTaken(db: Db, email: string): boolean {
  return db.query('SELECT 1 FROM users WHERE lower(email) = lower(?)').get(email) !== undefined;
}

/** Finds a user by the local username of their account or by e-mail, for login. */
export function findUserByLogin(db: Db, login: string): UserRow | undefined {
  return db
    .query<UserRow>(
      `SELECT users.* FROM users JOIN accounts ON accounts.id = users.account_id
       WHERE (accounts.domain IS NULL AND lower(accounts.username) = lower(@login)) OR lower(users.email) = lower(@login)
       LIMIT 1`,
    )
    .get({ login });
}

/** Inserts a user row. */
export function insertUser(
  db: Db,
  user: Pick<UserRow, 'id' | 'account_id' | 'password_hash' | 'role' | 'created_at' | 'updated_at'> & Partial<UserRow>,
): void {
  const keys = Object.keys(user).filter((k) => user[k as keyof UserRow] !== undefined);
  db.query(`INSERT INTO users (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`).run(
    Object.fromEntries(keys.map((k) => [k, user[k as keyof UserRow] as string | number | null])),
  );
}

/** Updates the given columns of one user. */
export function updateUser(db: Db, id: string, changes: Partial<Omit<UserRow, 'id' | 'account_id' | 'created_at'>>): void {
  const keys = Object.keys(changes).filter((k) => changes[k as keyof typeof changes] !== undefined);
  if (keys.length === 0) return;
  db.query(`UPDATE users SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({
    ...Object.fromEntries(keys.map((k) => [k, changes[k as keyof typeof changes] as string | number | null])),
    id,
  });
}

/** Counts users, optionally with one role. */
export function countUsers(db: Db, role?: UserRole): number {
  const row = role
    ? db.query<{ n: number }>('SELECT count(*) AS n FROM users WHERE role = ?').get(role)
    : db.query<{ n: number }>('SELECT count(*) AS n FROM users').get();
  return row?.n ?? 0;
}
