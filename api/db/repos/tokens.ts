import type { Db } from '../connection.js';

/** A row of `oauth_tokens`. The token itself is never stored, only its SHA-256. */
export interface TokenRow {
  id: string;
  application_id: string | null;
  user_id: string | null;
  token_hash: string;
  refresh_token_hash: string | null;
  scopes: string;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
  created_at: number;
}

/** Finds a token by the hash of its value. */
export function findTokenByHash(db: Db, hash: string): TokenRow | undefined {
  return db.query<TokenRow>('SELECT * FROM oauth_tokens WHERE token_hash = ?').get(hash);
}

/** Finds a token by the hash of its refresh token. */
export function findTokenByRefreshHash(db: Db, hash: string): TokenRow | undefined {
  return db.query<TokenRow>('SELECT * FROM oauth_tokens WHERE refresh_token_hash = ?').get(hash);
}

/** Inserts a token row. */
export function insertToken(db: Db, row: Omit<TokenRow, 'revoked_at' | 'last_used_at'>): void {
  db.query(
    `INSERT INTO oauth_tokens (id, application_id, user_id, token_hash, refresh_token_hash, scopes, expires_at, created_at)
     VALUES (@id, @application_id, @user_id, @token_hash, @refresh_token_hash, @scopes, @expires_at, @created_at)`,
  ).run({ ...row });
}

/** Marks a token revoked (kept for audit; a revoked token never authenticates again). */
export function revokeToken(db: Db, id: string, at: number): number {
  return db.query('UPDATE oauth_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes;
}

/** Records the last time a token was used, at most once a minute per token. */
export function touchToken(db: Db, id: string, at: number): void {
  db.query('UPDATE oauth_tokens SET last_used_at = @at WHERE id = @id AND (last_used_at IS NULL OR last_used_at < @at - 60000)').run({ at, id });
}
