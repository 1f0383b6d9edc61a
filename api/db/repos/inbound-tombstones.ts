import type { Db } from '../connection.js';

/** Records (or refreshes) that `actorUri` undid or deleted `uri` at `at`. */
export function upsertInboundTombstone(db: Db, uri: string, actorUri: string, at: number): void {
  db.query(
    `INSERT INTO inbound_tombstones (uri, actor_uri, tombstoned_at) VALUES (?, ?, ?)
     ON CONFLICT (uri, actor_uri) DO UPDATE SET tombstoned_at = max(tombstoned_at, excluded.tombstoned_at)`,
  ).run(uri, actorUri, at);
}

/** Whether `actorUri` undid or deleted `uri` at `since` or later. */
export function hasInboundTombstone(db: Db, uri: string, actorUri: string, since: number): boolean {
  return (
    db.query<{ one: number }>('SELECT 1 AS one FROM inbound_tombstones WHERE uri = ? AND actor_uri = ? AND tombstoned_at >= ?').get(uri, actorUri, since) !==
    undefined
  );
}

/** Removes the tombstones written before `before`; returns how many went. */
export function deleteInboundTombstonesBefore(db: Db, before: number): number {
  return db.query('DELETE FROM inbound_tombstones WHERE tombstoned_at < ?').run(before).changes;
}
