import type { Db } from '../connection.js';

/**
 * Named queries for moving house: everything an account's CSV exports hold (and what overwrite
 * imports compare with), each target named by username and domain (NULL for local accounts).
 */

/** An account one of the account's relationships points at. */
export interface HandleRow {
  account_id: string;
  username: string;
  domain: string | null;
}

/** A follow, with its options. */
export interface FollowExportRow extends HandleRow {
  show_reblogs: number;
  notify: number;
  languages: string | null;
}

/** The accounts `accountId` follows (accepted follows, as Mastodon exports them), newest first. */
export function followExportRows(db: Db, accountId: string): FollowExportRow[] {
  return db
    .query<FollowExportRow>(
      `SELECT a.id AS account_id, a.username, a.domain, f.show_reblogs, f.notify, f.languages
       FROM follows f JOIN accounts a ON a.id = f.target_account_id
       WHERE f.account_id = ? ORDER BY f.id DESC`,
    )
    .all(accountId);
}

/** The accounts `accountId` blocks, newest block first. */
export function blockExportRows(db: Db, accountId: string): HandleRow[] {
  return db
    .query<HandleRow>('SELECT a.id AS account_id, a.username, a.domain FROM blocks b JOIN accounts a ON a.id = b.target_account_id WHERE b.account_id = ? ORDER BY b.id DESC')
    .all(accountId);
}

/** The accounts `accountId` mutes (mutes that still apply at `now`), newest first. */
export function muteExportRows(db: Db, accountId: string, now: number): (HandleRow & { hide_notifications: number })[] {
  return db
    .query<HandleRow & { hide_notifications: number }>(
      `SELECT a.id AS account_id, a.username, a.domain, m.hide_notifications
       FROM mutes m JOIN accounts a ON a.id = m.target_account_id
       WHERE m.account_id = ? AND (m.expires_at IS NULL OR m.expires_at > ?) ORDER BY m.id DESC`,
    )
    .all(accountId, now);
}

/** The domains `accountId` blocks, oldest first. */
export function domainBlockExportRows(db: Db, accountId: string): string[] {
  return db
    .query<{ domain: string }>('SELECT domain FROM account_domain_blocks WHERE account_id = ? ORDER BY id')
    .all(accountId)
    .map((r) => r.domain);
}

/** A list's member, with the list's title. */
export interface ListMemberExportRow extends HandleRow {
  list_id: string;
  title: string;
}

/** Every member of every list `accountId` owns, list by list (oldest list first). */
export function listMemberExportRows(db: Db, accountId: string): ListMemberExportRow[] {
  return db
    .query<ListMemberExportRow>(
      `SELECT l.id AS list_id, l.title, a.id AS account_id, a.username, a.domain
       FROM lists l JOIN list_accounts la ON la.list_id = l.id JOIN accounts a ON a.id = la.account_id
       WHERE l.account_id = ? ORDER BY l.id, la.created_at, a.id`,
    )
    .all(accountId);
}

/** A bookmarked status: its ActivityPub id when remote (NULL for local ones) and its author. */
export interface BookmarkExportRow {
  status_id: string;
  uri: string | null;
  local: number;
  author_username: string;
}

/** The statuses `accountId` bookmarked, newest bookmark first. */
export function bookmarkExportRows(db: Db, accountId: string): BookmarkExportRow[] {
  return db
    .query<BookmarkExportRow>(
      `SELECT s.id AS status_id, s.uri, s.local, a.username AS author_username
       FROM bookmarks b JOIN statuses s ON s.id = b.status_id JOIN accounts a ON a.id = s.account_id
       WHERE b.account_id = ? ORDER BY b.id DESC`,
    )
    .all(accountId);
}
