import type { Db } from '../connection.js';

/** The timelines a read position can be saved for. */
export type MarkerTimeline = 'home' | 'notifications';

/** A row of `markers`: a user's last read position in one timeline. */
export interface MarkerRow {
  account_id: string;
  timeline: MarkerTimeline;
  last_read_id: string;
  version: number;
  updated_at: number;
}

/** The account's markers for the given timelines. */
export function findMarkers(db: Db, accountId: string, timelines: readonly MarkerTimeline[]): MarkerRow[] {
  if (timelines.length === 0) return [];
  return db
    .query<MarkerRow>('SELECT * FROM markers WHERE account_id = @account_id AND timeline IN (SELECT value FROM json_each(@timelines))')
    .all({ account_id: accountId, timelines: JSON.stringify(timelines) });
}

/** The account's marker for one timeline. */
export function findMarker(db: Db, accountId: string, timeline: MarkerTimeline): MarkerRow | undefined {
  return db.query<MarkerRow>('SELECT * FROM markers WHERE account_id = @account_id AND timeline = @timeline').get({ account_id: accountId, timeline });
}

/** Inserts or replaces a marker row as given. */
export function upsertMarker(db: Db, row: MarkerRow): void {
  db.query(
    `INSERT INTO markers (account_id, timeline, last_read_id, version, updated_at)
     VALUES (@account_id, @timeline, @last_read_id, @version, @updated_at)
     ON CONFLICT (account_id, timeline) DO UPDATE SET
       last_read_id = excluded.last_read_id, version = excluded.version, updated_at = excluded.updated_at`,
  ).run({ ...row });
}
