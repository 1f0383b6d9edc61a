import type { Db } from '../connection.js';
import type { PollRow } from './polls.js';

/**
 * Poll queries that statuses need: loading the polls of a batch of statuses with the viewer's
 * votes (for rendering), and replacing or removing a poll when a status is edited or deleted.
 * Voting itself lives with the polls (./polls.ts).
 */

/** The polls of a batch of statuses, keyed by status id. */
export function findPollsByStatusIds(db: Db, statusIds: readonly string[]): Map<string, PollRow> {
  const out = new Map<string, PollRow>();
  if (statusIds.length === 0) return out;
  const rows = db
    .query<PollRow>('SELECT * FROM polls WHERE status_id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))')
    .all(JSON.stringify([...new Set(statusIds)]));
  for (const r of rows) out.set(r.status_id, r);
  return out;
}

/** The viewer's choices in a batch of polls, keyed by poll id (polls without votes are absent). */
export function findVotesByPollIds(db: Db, accountId: string, pollIds: readonly string[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  if (pollIds.length === 0) return out;
  const rows = db
    .query<{ poll_id: string; choice: number }>(
      `SELECT poll_id, choice FROM poll_votes WHERE account_id = @account_id
       AND poll_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids)) ORDER BY poll_id, choice`,
    )
    .all({ account_id: accountId, ids: JSON.stringify([...new Set(pollIds)]) });
  for (const r of rows) {
    const list = out.get(r.poll_id) ?? [];
    list.push(r.choice);
    out.set(r.poll_id, list);
  }
  return out;
}

/** Removes the poll of a status (votes cascade). */
export function deletePollOfStatus(db: Db, statusId: string): void {
  db.query('DELETE FROM polls WHERE status_id = ?').run(statusId);
}

/** Changes a poll's expiry and hide_totals without touching its votes (an edit that keeps the options). */
export function updatePollSettings(db: Db, pollId: string, expiresAt: number | null, hideTotals: number, at: number): void {
  db.query('UPDATE polls SET expires_at = @expires_at, hide_totals = @hide_totals, updated_at = @at WHERE id = @id').run({
    id: pollId,
    expires_at: expiresAt,
    hide_totals: hideTotals,
    at,
  });
}
