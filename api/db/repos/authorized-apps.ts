import type { Db } from '../connection.js';

/** An application a user has live tokens of, summed over those tokens. */
export interface AuthorizedAppRow {
  id: string;
  name: string;
  website: string | null;
  /** Every live token's scopes, space-separated, one token after the other (may repeat). */
  scopes: string;
  tokens: number;
  first_at: number;
  last_used_at: number | null;
}

// A token is live when it is not revoked and has not expired.
const LIVE = '(t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > @at))';

/** The applications a user has live tokens of, most recently authorized first. */
export function authorizedAppsOfUser(db: Db, userId: string, at: number): AuthorizedAppRow[] {
  return db
    .query<AuthorizedAppRow>(
      `SELECT a.id, a.name, a.website, group_concat(t.scopes, ' ') AS scopes, count(*) AS tokens,
              min(t.created_at) AS first_at, max(t.last_used_at) AS last_used_at
         FROM oauth_tokens t JOIN oauth_applications a ON a.id = t.application_id
        WHERE t.user_id = @user_id AND ${LIVE}
        GROUP BY a.id ORDER BY max(t.created_at) DESC`,
    )
    .all({ user_id: userId, at });
}

/** Revokes a user's live tokens of one application; returns the ids of those revoked. */
export function revokeUserAppTokens(db: Db, userId: string, applicationId: string, at: number): string[] {
  const ids = db
    .query<{ id: string }>(`SELECT t.id FROM oauth_tokens t WHERE t.user_id = @user_id AND t.application_id = @app AND ${LIVE}`)
    .all({ user_id: userId, app: applicationId, at })
    .map((r) => r.id);
  db.query('UPDATE oauth_tokens SET revoked_at = @at WHERE user_id = @user_id AND application_id = @app AND revoked_at IS NULL').run({ user_id: userId, app: applicationId, at });
  return ids;
}
