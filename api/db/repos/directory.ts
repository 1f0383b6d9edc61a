import type { Db } from '../connection.js';
import { blockedEitherWaySql, pendingUserSql, type HiddenSql } from './exclusions.js';

/**
 * Account listings by query: the account search (`GET /api/v1/accounts/search`) and the profile
 * directory (`GET /api/v1/directory`). Both return ids only; core loads the entities in a batch.
 */

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** An account search, as core parsed it. */
export interface AccountSearchQuery {
  /** The query without a leading '@'. */
  text: string;
  /** This instance's domain, with which local accounts' full handles are written. */
  localDomain: string;
  /** Only the viewer and the accounts they follow. */
  following: boolean;
  limit: number;
  offset: number;
}

/**
 * Accounts whose username, handle (`user@domain`, local accounts under this instance's domain)
 * or display name (or a word of it) starts with the query, ASCII letters in any case. Suspended
 * and moved accounts, pending sign-ups and accounts blocking or blocked by the viewer are left out.
 * The exact handle comes first, then accounts the viewer follows, then those following the viewer,
 * then local accounts, then the most followed.
 */
export function searchAccountIdsFor(db: Db, viewerId: string, q: AccountSearchQuery): string[] {
  const handle = `(a.username || '@' || coalesce(a.domain, @local_domain))`;
  const follows = 'EXISTS (SELECT 1 FROM follows f WHERE f.account_id = @viewer_id AND f.target_account_id = a.id)';
  const followedBy = 'EXISTS (SELECT 1 FROM follows f WHERE f.account_id = a.id AND f.target_account_id = @viewer_id)';
  const parts = [
    'a.suspended_at IS NULL',
    'a.moved_to_account_id IS NULL',
    `NOT ${pendingUserSql('a')}`,
    `NOT ${blockedEitherWaySql('a')}`,
    `(a.username LIKE @prefix ESCAPE '\\' OR ${handle} LIKE @prefix ESCAPE '\\'
      OR a.display_name LIKE @prefix ESCAPE '\\' OR a.display_name LIKE @word ESCAPE '\\')`,
  ];
  if (q.following) parts.push(`(a.id = @viewer_id OR ${follows})`);
  return db
    .query<{ id: string }>(
      `SELECT a.id FROM accounts a WHERE ${parts.join(' AND ')}
       ORDER BY (lower(${handle}) = lower(@text) OR (a.domain IS NULL AND lower(a.username) = lower(@text))) DESC,
         ${follows} DESC, ${followedBy} DESC, (a.domain IS NULL) DESC, a.followers_count DESC, a.id
       LIMIT @limit OFFSET @offset`,
    )
    .all({
      viewer_id: viewerId,
      text: q.text,
      local_domain: q.localDomain,
      prefix: `${likeEscape(q.text)}%`,
      word: `% ${likeEscape(q.text)}%`,
      limit: q.limit,
      offset: q.offset,
    })
    .map((r) => r.id);
}

/** A directory listing, as core parsed it. */
export interface DirectoryQuery {
  /** `active`: most recently posting first; `new`: newest accounts first. */
  order: 'active' | 'new';
  local: boolean;
  limit: number;
  offset: number;
}

/**
 * Accounts in the profile directory: discoverable ones that are not suspended, silenced or moved
 * (nor pending sign-ups). For a signed-in viewer, the accounts their blocks (either way), mutes and
 * domain blocks hide are left out (`hidden`).
 */
export function directoryAccountIds(db: Db, hidden: HiddenSql, viewerId: string | null, q: DirectoryQuery): string[] {
  const parts = [
    'a.discoverable = 1',
    'a.suspended_at IS NULL',
    'a.silenced_at IS NULL',
    'a.moved_to_account_id IS NULL',
    `NOT ${pendingUserSql('a')}`,
  ];
  if (q.local) parts.push('a.domain IS NULL');
  if (viewerId !== null) parts.push(`NOT ${hidden('a.id')}`);
  const order = q.order === 'new' ? 'a.id DESC' : 'a.last_status_at IS NULL, a.last_status_at DESC, a.id DESC';
  return db
    .query<{ id: string }>(`SELECT a.id FROM accounts a WHERE ${parts.join(' AND ')} ORDER BY ${order} LIMIT @limit OFFSET @offset`)
    .all({ viewer_id: viewerId, limit: q.limit, offset: q.offset })
    .map((r) => r.id);
}
