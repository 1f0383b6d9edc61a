import type { Db } from '../connection.js';

/**
 * Named queries for OAuth applications, authorization codes (grants) and browser sessions.
 * Secrets (client secrets, codes, session cookies) are stored only as SHA-256 hashes.
 */

/** A row of `oauth_applications`; `client_secret` holds the SHA-256 of the secret. */
export interface AppRow {
  id: string;
  name: string;
  website: string | null;
  /** Newline-separated. */
  redirect_uris: string;
  /** Space-separated. */
  scopes: string;
  client_id: string;
  client_secret: string;
  owner_user_id: string | null;
  created_at: number;
}

/** A row of `oauth_grants`: an authorization code waiting to be exchanged once. */
export interface GrantRow {
  id: string;
  application_id: string;
  user_id: string;
  code_hash: string;
  redirect_uri: string;
  scopes: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

/** A row of `web_sessions`: a signed-in browser on the login, consent and setup pages. */
export interface WebSessionRow {
  id: string;
  user_id: string;
  session_hash: string;
  csrf_token: string;
  expires_at: number;
  created_at: number;
}

/** Inserts an application. */
export function insertApp(db: Db, row: AppRow): void {
  db.query(
    `INSERT INTO oauth_applications (id, name, website, redirect_uris, scopes, client_id, client_secret, owner_user_id, created_at)
     VALUES (@id, @name, @website, @redirect_uris, @scopes, @client_id, @client_secret, @owner_user_id, @created_at)`,
  ).run({ ...row });
}

/** Finds an application by its public client id. */
export function findAppByClientId(db: Db, clientId: string): AppRow | undefined {
  return db.query<AppRow>('SELECT * FROM oauth_applications WHERE client_id = ?').get(clientId);
}

/** Loads an application by id. */
export function findAppById(db: Db, id: string): AppRow | undefined {
  return db.query<AppRow>('SELECT * FROM oauth_applications WHERE id = @id').get({ id });
}

/** Inserts an authorization code. */
export function insertGrant(db: Db, row: Omit<GrantRow, 'used_at'>): void {
  db.query(
    `INSERT INTO oauth_grants (id, application_id, user_id, code_hash, redirect_uri, scopes, code_challenge, code_challenge_method, expires_at, created_at)
     VALUES (@id, @application_id, @user_id, @code_hash, @redirect_uri, @scopes, @code_challenge, @code_challenge_method, @expires_at, @created_at)`,
  ).run({ ...row });
}

/** Finds an authorization code by the hash of its value. */
export function findGrantByCodeHash(db: Db, hash: string): GrantRow | undefined {
  return db.query<GrantRow>('SELECT * FROM oauth_grants WHERE code_hash = ?').get(hash);
}

/** Marks a code used; returns 0 when it already was (a concurrent or replayed exchange). */
export function markGrantUsed(db: Db, id: string, at: number): number {
  return db.query('UPDATE oauth_grants SET used_at = @at WHERE id = @id AND used_at IS NULL').run({ id, at }).changes;
}

/** Removes codes that expired before `before` and can no longer be exchanged or replayed usefully. */
export function deleteExpiredGrants(db: Db, before: number): number {
  return db.query('DELETE FROM oauth_grants WHERE expires_at < ?').run(before).changes;
}

/** Records which authorization code a token was issued from. */
export function setTokenGrant(db: Db, tokenId: string, grantId: string | null): void {
  db.query('UPDATE oauth_tokens SET grant_id = @grant_id WHERE id = @id').run({ id: tokenId, grant_id: grantId });
}

/** The authorization code a token was issued from, if any. */
export function tokenGrantId(db: Db, tokenId: string): string | null {
  const row = db.query<{ grant_id: string | null }>('SELECT grant_id FROM oauth_tokens WHERE id = @id').get({ id: tokenId });
  return row?.grant_id ?? null;
}

/** Revokes every live token issued from one authorization code; returns their ids and users. */
export function revokeTokensOfGrant(db: Db, grantId: string, at: number): { id: string; user_id: string | null }[] {
  const rows = db
    .query<{ id: string; user_id: string | null }>('SELECT id, user_id FROM oauth_tokens WHERE grant_id = @grant_id AND revoked_at IS NULL')
    .all({ grant_id: grantId });
  db.query('UPDATE oauth_tokens SET revoked_at = @at WHERE grant_id = @grant_id AND revoked_at IS NULL').run({ grant_id: grantId, at });
  return rows;
}

/** Inserts a browser session. */
export function insertWebSession(db: Db, row: WebSessionRow): void {
  db.query(
    `INSERT INTO web_sessions (id, user_id, session_hash, csrf_token, expires_at, created_at)
     VALUES (@id, @user_id, @session_hash, @csrf_token, @expires_at, @created_at)`,
  ).run({ ...row });
}

/** Finds a browser session by the hash of its cookie value. */
export function findWebSessionByHash(db: Db, hash: string): WebSessionRow | undefined {
  return db.query<WebSessionRow>('SELECT * FROM web_sessions WHERE session_hash = ?').get(hash);
}

/** Deletes one browser session. */
export function deleteWebSession(db: Db, id: string): void {
  db.query('DELETE FROM web_sessions WHERE id = @id').run({ id });
}

/** Deletes browser sessions that have expired. */
export function deleteExpiredWebSessions(db: Db, before: number): number {
  return db.query('DELETE FROM web_sessions WHERE expires_at <= ?').run(before).changes;
}
