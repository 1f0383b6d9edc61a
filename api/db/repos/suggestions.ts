import type { Db } from '../connection.js';
import { pendingUserSql, type HiddenSql } from './exclusions.js';

/**
 * Follow suggestions: per-user interaction candidates (`suggestion_candidates`), dismissed
 * suggestions (`suggestion_dismissals`), and the eligibility rule every source shares.
 */

/**
 * The condition an account row `a` meets when it may be suggested to @viewer_id: not the viewer,
 * not suspended, moved or locked, not a pending sign-up, not followed or requested, not hidden by
 * the viewer's blocks (either way), mutes or domain blocks, and not dismissed by the viewer.
 */
function eligibleSql(a: string, hidden: HiddenSql): string {
  return [
    `${a}.id <> @viewer_id`,
    `${a}.suspended_at IS NULL`,
    `${a}.moved_to_account_id IS NULL`,
    `${a}.locked = 0`,
    `NOT ${pendingUserSql(a)}`,
    `NOT EXISTS (SELECT 1 FROM follows sf WHERE sf.account_id = @viewer_id AND sf.target_account_id = ${a}.id)`,
    `NOT EXISTS (SELECT 1 FROM follow_requests sr WHERE sr.account_id = @viewer_id AND sr.target_account_id = ${a}.id)`,
    `NOT ${hidden(`${a}.id`)}`,
    `NOT EXISTS (SELECT 1 FROM suggestion_dismissals sd WHERE sd.account_id = @viewer_id AND sd.target_account_id = ${a}.id)`,
  ].join('\n    AND ');
}

/** True when the account belongs to a local user (only they get suggestions). */
export function isLocalUserAccount(db: Db, accountId: string): boolean {
  return db.query('SELECT 1 FROM users WHERE account_id = @account_id').get({ account_id: accountId }) !== undefined;
}

/** True when `accountId` follows `targetAccountId`. */
export function follows(db: Db, accountId: string, targetAccountId: string): boolean {
  return (
    db
      .query('SELECT 1 FROM follows WHERE account_id = @account_id AND target_account_id = @target_account_id')
      .get({ account_id: accountId, target_account_id: targetAccountId }) !== undefined
  );
}

/** Adds `weight` to a candidate's score (creating it), and marks it as just interacted with. */
export function addCandidateScore(db: Db, accountId: string, targetAccountId: string, weight: number, at: number): void {
  db.query(
    `INSERT INTO suggestion_candidates (account_id, target_account_id, score, updated_at)
     VALUES (@account_id, @target_account_id, @weight, @at)
     ON CONFLICT (account_id, target_account_id) DO UPDATE SET score = score + excluded.score, updated_at = excluded.updated_at`,
  ).run({ account_id: accountId, target_account_id: targetAccountId, weight, at });
}

/**
 * Keeps a user's `keep` best candidates and drops the rest, along with candidates not interacted
 * with since `since` (ms).
 */
export function trimCandidates(db: Db, accountId: string, keep: number, since: number): void {
  db.query('DELETE FROM suggestion_candidates WHERE account_id = @account_id AND updated_at < @since').run({ account_id: accountId, since });
  db.query(
    `DELETE FROM suggestion_candidates WHERE account_id = @account_id AND target_account_id NOT IN (
       SELECT target_account_id FROM suggestion_candidates WHERE account_id = @account_id
       ORDER BY score DESC, updated_at DESC LIMIT @keep)`,
  ).run({ account_id: accountId, keep });
}

/** Removes one candidate of one user. */
export function deleteCandidate(db: Db, accountId: string, targetAccountId: string): void {
  db.query('DELETE FROM suggestion_candidates WHERE account_id = @account_id AND target_account_id = @target_account_id').run({
    account_id: accountId,
    target_account_id: targetAccountId,
  });
}

/** Removes the candidates two accounts are for each other, both ways (in one statement). */
export function deleteCandidatesBetween(db: Db, accountId: string, otherAccountId: string): void {
  db.query(
    `DELETE FROM suggestion_candidates
     WHERE (account_id = @account_id AND target_account_id = @other_account_id)
        OR (account_id = @other_account_id AND target_account_id = @account_id)`,
  ).run({ account_id: accountId, other_account_id: otherAccountId });
}

/** Records that a user dismissed a suggestion; nothing happens for an unknown account. */
export function insertDismissal(db: Db, accountId: string, targetAccountId: string, at: number): void {
  db.query(
    `INSERT OR IGNORE INTO suggestion_dismissals (account_id, target_account_id, created_at)
     SELECT @account_id, id, @at FROM accounts WHERE id = @target_account_id`,
  ).run({ account_id: accountId, target_account_id: targetAccountId, at });
}

/**
 * A user's eligible interaction candidates interacted with since `since`: highest score first,
 * then the most recently updated accounts.
 */
export function eligibleCandidateIds(db: Db, hidden: HiddenSql, viewerId: string, since: number, limit: number): string[] {
  return db
    .query<{ id: string }>(
      `SELECT a.id FROM suggestion_candidates c JOIN accounts a ON a.id = c.target_account_id
       WHERE c.account_id = @viewer_id AND c.updated_at >= @since
         AND ${eligibleSql('a', hidden)}
       ORDER BY c.score DESC, a.updated_at DESC, a.id DESC LIMIT @limit`,
    )
    .all({ viewer_id: viewerId, since, limit })
    .map((r) => r.id);
}

/** Of `ids`, those that may be suggested to the viewer (order not kept). */
export function eligibleAmong(db: Db, hidden: HiddenSql, viewerId: string, ids: readonly string[]): Set<string> {
  if (ids.length === 0) return new Set();
  const rows = db
    .query<{ id: string }>(
      `SELECT a.id FROM accounts a
       WHERE a.id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids)) AND ${eligibleSql('a', hidden)}`,
    )
    .all({ viewer_id: viewerId, ids: JSON.stringify([...new Set(ids)]) });
  return new Set(rows.map((r) => r.id));
}

/**
 * Active local accounts that may be suggested to the viewer (the cold-start source): discoverable,
 * not silenced, with a status since `activeSince` (ms); most followed first, then the most
 * recently updated.
 */
export function eligibleActiveLocalIds(db: Db, hidden: HiddenSql, viewerId: string, activeSince: number, limit: number): string[] {
  return db
    .query<{ id: string }>(
      `SELECT a.id FROM accounts a
       WHERE a.domain IS NULL AND a.discoverable = 1 AND a.silenced_at IS NULL AND a.last_status_at >= @active_since
         AND ${eligibleSql('a', hidden)}
       ORDER BY a.followers_count DESC, a.updated_at DESC, a.id DESC LIMIT @limit`,
    )
    .all({ viewer_id: viewerId, active_since: activeSince, limit })
    .map((r) => r.id);
}
