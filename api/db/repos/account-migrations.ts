import type { Db } from '../connection.js';

/** A row of `account_migrations` (0064_account_migrations.sql): one move of a local account. */
export interface AccountMigrationRow {
  id: string;
  account_id: string;
  target_account_id: string | null;
  acct: string;
  followers_count: number;
  created_at: number;
}

/** Records a move. */
export function insertAccountMigration(db: Db, row: AccountMigrationRow): void {
  db.query(
    `INSERT INTO account_migrations (id, account_id, target_account_id, acct, followers_count, created_at)
     VALUES (@id, @account_id, @target_account_id, @acct, @followers_count, @created_at)`,
  ).run({ ...row });
}

/** The latest move of an account, if it ever moved. */
export function latestAccountMigration(db: Db, accountId: string): AccountMigrationRow | undefined {
  return db
    .query<AccountMigrationRow>('SELECT * FROM account_migrations WHERE account_id = @account_id ORDER BY created_at DESC, id DESC LIMIT 1')
    .get({ account_id: accountId });
}

/** Sets the aliases (`also_known_as`, a JSON array of actor URIs) of an account. */
export function setAccountAliases(db: Db, accountId: string, aliases: readonly string[], at: number): void {
  db.query('UPDATE accounts SET also_known_as = @also_known_as, updated_at = @updated_at WHERE id = @id').run({
    id: accountId,
    also_known_as: JSON.stringify(aliases),
    updated_at: at,
  });
}
