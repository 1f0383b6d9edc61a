import type { Db } from '../connection.js';

/** A row of `polls` (options and tallies are JSON arrays; see 0002_statuses.sql). */
export interface PollRow {
  id: string;
  status_id: string;
  account_id: string;
  options: string;
  tallies: string;
  multiple: number;
  hide_totals: number;
  votes_count: number;
  voters_count: number | null;
  expires_at: number | null;
  ended_notified: number;
  last_fetched_at: number | null;
  created_at: number;
  updated_at: number;
}

/** Inserts a poll row. */
export function insertPoll(
  db: Db,
  row: Pick<PollRow, 'id' | 'status_id' | 'account_id' | 'options' | 'tallies' | 'multiple' | 'hide_totals' | 'expires_at' | 'created_at'> & {
    voters_count: number | null;
  },
): void {
  db.query(
    `INSERT INTO polls (id, status_id, account_id, options, tallies, multiple, hide_totals, votes_count, voters_count,
       expires_at, ended_notified, created_at, updated_at)
     VALUES (@id, @status_id, @account_id, @options, @tallies, @multiple, @hide_totals, 0, @voters_count,
       @expires_at, 0, @created_at, @created_at)`,
  ).run(row);
}

/** Loads a poll by id. */
export function findPollById(db: Db, id: string): PollRow | undefined {
  return db.query<PollRow>('SELECT * FROM polls WHERE id = @id').get({ id });
}

/** The choices an account has voted for in a poll, in ascending order. */
export function findOwnVotes(db: Db, pollId: string, accountId: string): number[] {
  return db
    .query<{ choice: number }>('SELECT choice FROM poll_votes WHERE poll_id = @poll_id AND account_id = @account_id ORDER BY choice')
    .all({ poll_id: pollId, account_id: accountId })
    .map((r) => r.choice);
}

/** Inserts one vote (one row per chosen option). */
export function insertPollVote(db: Db, row: { id: string; poll_id: string; account_id: string; choice: number; created_at: number }): void {
  db.query('INSERT INTO poll_votes (id, poll_id, account_id, choice, created_at) VALUES (@id, @poll_id, @account_id, @choice, @created_at)').run(row);
}

/**
 * Recomputes a poll's tallies, votes_count and voters_count from its vote rows, so the counters
 * cannot drift whatever happened before.
 */
export function recountPoll(db: Db, pollId: string, optionCount: number, at: number): void {
  const rows = db
    .query<{ choice: number; n: number }>('SELECT choice, COUNT(*) AS n FROM poll_votes WHERE poll_id = @poll_id GROUP BY choice')
    .all({ poll_id: pollId });
  const tallies = new Array<number>(optionCount).fill(0);
  let votes = 0;
  for (const r of rows) {
    if (r.choice >= 0 && r.choice < optionCount) tallies[r.choice] = r.n;
    votes += r.n;
  }
  const voters =
    db.query<{ n: number }>('SELECT COUNT(DISTINCT account_id) AS n FROM poll_votes WHERE poll_id = @poll_id').get({ poll_id: pollId })?.n ?? 0;
  db.query('UPDATE polls SET tallies = @tallies, votes_count = @votes, voters_count = @voters, updated_at = @at WHERE id = @poll_id').run({
    poll_id: pollId,
    tallies: JSON.stringify(tallies),
    votes,
    voters,
    at,
  });
}

/** Polls that have ended by `at` and whose end has not been announced yet, oldest first. */
export function findEndedUnannouncedPolls(db: Db, at: number, limit: number): { id: string; status_id: string }[] {
  return db
    .query<{ id: string; status_id: string }>(
      `SELECT id, status_id FROM polls
       WHERE ended_notified = 0 AND expires_at IS NOT NULL AND expires_at <= @at
       ORDER BY expires_at LIMIT @limit`,
    )
    .all({ at, limit });
}

/** Marks a poll's end as announced; true only for the one caller that changed it. */
export function markPollEndAnnounced(db: Db, pollId: string): boolean {
  return db.query('UPDATE polls SET ended_notified = 1 WHERE id = @poll_id AND ended_notified = 0').run({ poll_id: pollId }).changes > 0;
}

/** The option titles stored in `polls.options` (JSON); anything unreadable yields none. */
export function pollOptionTitles(json: string | null): string[] {
  if (json === null) return [];
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}
