import type { Db } from '../connection.js';

/** A row of `invites`: a code that lets someone sign up, limited by uses and an expiry. */
export interface InviteRow {
  id: string;
  user_id: string;
  code: string;
  max_uses: number | null;
  uses: number;
  autofollow: number;
  comment: string | null;
  expires_at: number | null;
  created_at: number;
}

/** Inserts an invite. */
export function insertInvite(db: Db, row: Omit<InviteRow, 'uses'> & { uses?: number }): void {
  db.query(
    `INSERT INTO invites (id, user_id, code, max_uses, uses, autofollow, comment, expires_at, created_at)
     VALUES (@id, @user_id, @code, @max_uses, @uses, @autofollow, @comment, @expires_at, @created_at)`,
  ).run({ ...row, uses: row.uses ?? 0 });
}

/** Finds an invite by its code (codes are case-sensitive). */
export function findInviteByCode(db: Db, code: string): InviteRow | undefined {
  return db.query<InviteRow>('SELECT * FROM invites WHERE code = ?').get(code);
}

/**
 * Counts one use of an invite, only while it still has uses left and has not expired at `at`;
 * returns 0 when it had none left (a concurrent sign-up took the last one).
 */
export function useInvite(db: Db, id: string, at: number): number {
  return db
    .query('UPDATE invites SET uses = uses + 1 WHERE id = @id AND (max_uses IS NULL OR uses < max_uses) AND (expires_at IS NULL OR expires_at > @at)')
    .run({ id, at }).changes;
}
