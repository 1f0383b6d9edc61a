import type { Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';

/**
 * User-level mutes (`mutes`): named queries. A mute whose `expires_at` has passed no longer
 * applies; the queries here that read mutes for a decision take `now` and ignore such rows, and a
 * scheduled task deletes them.
 */

/** A row of `mutes`: `account_id` mutes `target_account_id`. */
export interface MuteRow {
  id: string;
  account_id: string;
  target_account_id: string;
  hide_notifications: number;
  /** ms since epoch, or null for a mute without end. */
  expires_at: number | null;
  created_at: number;
}

const IDS = 'IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))';
const ACTIVE = '(expires_at IS NULL OR expires_at > @now)';

/** The mute of `accountId` on `targetAccountId`, expired or not. */
export function findMute(db: Db, accountId: string, targetAccountId: string): MuteRow | undefined {
  return db
    .query<MuteRow>('SELECT * FROM mutes WHERE account_id = @account_id AND target_account_id = @target_account_id')
    .get({ account_id: accountId, target_account_id: targetAccountId });
}

/** Creates a mute or replaces the options of an existing one (same row id kept). */
export function upsertMute(db: Db, row: MuteRow): void {
  db.query(
    `INSERT INTO mutes (id, account_id, target_account_id, hide_notifications, expires_at, created_at)
     VALUES (@id, @account_id, @target_account_id, @hide_notifications, @expires_at, @created_at)
     ON CONFLICT (account_id, target_account_id) DO UPDATE SET
       hide_notifications = excluded.hide_notifications, expires_at = excluded.expires_at`,
  ).run({ ...row });
}

/** Deletes a mute; returns how many rows went (0 or 1). */
export function deleteMute(db: Db, accountId: string, targetAccountId: string): number {
  return db
    .query('DELETE FROM mutes WHERE account_id = @account_id AND target_account_id = @target_account_id')
    .run({ account_id: accountId, target_account_id: targetAccountId }).changes;
}

/** The account's active mutes of the given accounts, keyed by target id. */
export function activeMutesOf(db: Db, accountId: string, ids: readonly string[], now: number): Map<string, MuteRow> {
  const rows = db
    .query<MuteRow>(`SELECT * FROM mutes WHERE account_id = @account_id AND target_account_id ${IDS} AND ${ACTIVE}`)
    .all({ account_id: accountId, ids: JSON.stringify(ids), now });
  return new Map(rows.map((r) => [r.target_account_id, r]));
}

/** A page of the account's active mutes, newest first (paged by mute id). */
export function muteListPage(db: Db, accountId: string, page: PageBounds, now: number): MuteRow[] {
  const p = pageSql('id', page);
  const rows = db
    .query<MuteRow>(`SELECT * FROM mutes WHERE account_id = @account_id AND ${ACTIVE} ${p.where} ${p.orderLimit}`)
    .all({ account_id: accountId, now, ...p.params });
  return p.reverse ? rows.reverse() : rows;
}

/** Deletes the mutes that have expired by `now`; returns them (for events). */
export function deleteExpiredMutes(db: Db, now: number, limit: number): MuteRow[] {
  return db
    .query<MuteRow>(
      `DELETE FROM mutes WHERE id IN (SELECT id FROM mutes WHERE expires_at IS NOT NULL AND expires_at <= @now LIMIT @limit)
       RETURNING *`,
    )
    .all({ now, limit });
}

/** Active mutes of `targetAccountId` by local accounts (a moved account's muters). */
export function localMutesOf(db: Db, targetAccountId: string, now: number): MuteRow[] {
  return db
    .query<MuteRow>(`SELECT m.* FROM mutes m JOIN accounts a ON a.id = m.account_id WHERE m.target_account_id = @target_account_id AND a.domain IS NULL AND ${ACTIVE.replace(/expires_at/g, 'm.expires_at')}`)
    .all({ target_account_id: targetAccountId, now });
}
