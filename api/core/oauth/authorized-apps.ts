import { authorizedAppsOfUser, revokeUserAppTokens } from '../../db/repos/authorized-apps.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import type { Deps } from '../deps.js';

/** An application the user has authorized, as `GET /api/hearth/authorized_apps` shows it. */
export interface AuthorizedApp {
  id: string;
  name: string;
  website: string | null;
  /** The scopes its live tokens hold together. */
  scopes: string[];
  /** How many live tokens it has. */
  tokens: number;
  created_at: string;
  last_used_at: string | null;
  /** Whether the token of this request belongs to it. */
  current: boolean;
}

/** The applications holding live tokens of a user (Mastodon's "Authorized apps" page). */
export function listAuthorizedApps(deps: Deps, userId: string, currentAppId: string | null): AuthorizedApp[] {
  return authorizedAppsOfUser(deps.db, userId, now()).map((row) => ({
    id: row.id,
    name: row.name,
    website: row.website,
    scopes: [...new Set(row.scopes.split(/\s+/).filter(Boolean))].sort(),
    tokens: row.tokens,
    created_at: new Date(row.first_at).toISOString(),
    last_used_at: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
    current: row.id === currentAppId,
  }));
}

/**
 * Revokes every live token the user gave an application (its streams close, as on any revoke):
 * 404 when the application holds none.
 */
export function revokeAuthorizedApp(deps: Deps, userId: string, applicationId: string): void {
  const revoked = deps.db.transaction(() => revokeUserAppTokens(deps.db, userId, applicationId, now()));
  if (revoked.length === 0) throw notFound();
  for (const tokenId of revoked) deps.events.emit('token.revoked', { tokenId, userId });
}
