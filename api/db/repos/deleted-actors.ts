import type { Db } from '../connection.js';
import type { StatusRow } from './statuses.js';

/** Records that a remote actor deleted itself (idempotent). */
export function insertDeletedActor(db: Db, uri: string, domain: string, at: number): void {
  db.query('INSERT INTO deleted_actors (uri, domain, deleted_at) VALUES (?, ?, ?) ON CONFLICT (uri) DO NOTHING').run(uri, domain, at);
}

/** Whether an actor URI belongs to a remote account that was deleted. */
export function isDeletedActorUri(db: Db, uri: string): boolean {
  return db.query<{ one: number }>('SELECT 1 AS one FROM deleted_actors WHERE uri = ?').get(uri) !== undefined;
}

/** Every status (and reblog) of an account. */
export function statusesOfAccount(db: Db, accountId: string): StatusRow[] {
  return db.query<StatusRow>('SELECT * FROM statuses WHERE account_id = @account_id').all({ account_id: accountId });
}

/** Reblogs by other accounts of an account's statuses. */
export function reblogsByOthersOf(db: Db, accountId: string): StatusRow[] {
  return db
    .query<StatusRow>(
      `SELECT r.* FROM statuses r JOIN statuses s ON s.id = r.reblog_of_id
       WHERE s.account_id = @account_id AND r.account_id <> @account_id`,
    )
    .all({ account_id: accountId });
}

/** A follow or follow request, either way, involving an account. */
export interface FollowEdge {
  id: string;
  account_id: string;
  target_account_id: string;
}

/** Follows (or follow requests) from or to an account. */
export function followEdgesOf(db: Db, table: 'follows' | 'follow_requests', accountId: string): FollowEdge[] {
  const sql =
    table === 'follows'
      ? 'SELECT id, account_id, target_account_id FROM follows WHERE account_id = @account_id OR target_account_id = @account_id'
      : 'SELECT id, account_id, target_account_id FROM follow_requests WHERE account_id = @account_id OR target_account_id = @account_id';
  return db.query<FollowEdge>(sql).all({ account_id: accountId });
}

/** Favourites an account gave to other accounts' statuses. */
export function favouritesGivenBy(db: Db, accountId: string): { id: string; status_id: string }[] {
  return db
    .query<{ id: string; status_id: string }>(
      `SELECT f.id, f.status_id FROM favourites f JOIN statuses s ON s.id = f.status_id
       WHERE f.account_id = @account_id AND s.account_id <> @account_id`,
    )
    .all({ account_id: accountId });
}

/** Polls (of other accounts) an account voted in, with their option counts. */
export function pollsVotedInBy(db: Db, accountId: string): { id: string; options: string }[] {
  return db
    .query<{ id: string; options: string }>(
      `SELECT DISTINCT p.id, p.options FROM poll_votes v JOIN polls p ON p.id = v.poll_id
       WHERE v.account_id = @account_id AND p.account_id <> @account_id`,
    )
    .all({ account_id: accountId });
}

/** Removes an account's poll votes. */
export function deletePollVotesBy(db: Db, accountId: string): void {
  db.query('DELETE FROM poll_votes WHERE account_id = @account_id').run({ account_id: accountId });
}

/**
 * Removes an account row; the database drops what references it (statuses, media, polls,
 * favourites, bookmarks, follows, notifications, mentions… ON DELETE CASCADE).
 */
export function deleteAccountRow(db: Db, accountId: string): void {
  db.query('DELETE FROM accounts WHERE id = @account_id').run({ account_id: accountId });
}
