import type { PollRow } from '../db/repos/polls.js';
import { isoTime } from '../util/clock.js';

/** One option of a poll; votes_count is null while totals are hidden. */
export interface MastodonPollOption {
  title: string;
  votes_count: number | null;
}

/** Mastodon's Poll entity. */
export interface MastodonPoll {
  id: string;
  expires_at: string | null;
  expired: boolean;
  multiple: boolean;
  votes_count: number;
  voters_count: number | null;
  options: MastodonPollOption[];
  emojis: never[];
  voted?: boolean;
  own_votes?: number[];
}

/** What the viewer did with a poll: null for anonymous viewers (then voted/own_votes are left out). */
export interface PollViewer {
  /** The viewer's choices, ascending. */
  ownVotes: number[];
  /** True when the viewer wrote the poll (Mastodon counts the author as having voted). */
  isAuthor: boolean;
}

function parseArray<T>(json: string): T[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? (value as T[]) : [];
  } catch {
    return [];
  }
}

/** The option titles of a poll row. */
export function pollOptionTitles(row: Pick<PollRow, 'options'>): string[] {
  return parseArray<unknown>(row.options).map((t) => String(t));
}

/**
 * The Poll entity. Totals of a poll with hide_totals are null until it has ended (for everyone,
 * the author included, as Mastodon shows them).
 */
export function toMastodonPoll(row: PollRow, viewer: PollViewer | null, at: number): MastodonPoll {
  const titles = pollOptionTitles(row);
  const tallies = parseArray<number>(row.tallies);
  const expired = row.expires_at !== null && row.expires_at <= at;
  const showTotals = expired || !row.hide_totals;
  const poll: MastodonPoll = {
    id: row.id,
    expires_at: row.expires_at === null ? null : isoTime(row.expires_at),
    expired,
    multiple: Boolean(row.multiple),
    votes_count: row.votes_count,
    voters_count: row.voters_count,
    options: titles.map((title, i) => ({ title, votes_count: showTotals ? (tallies[i] ?? 0) : null })),
    emojis: [],
  };
  if (viewer) {
    poll.voted = viewer.isAuthor || viewer.ownVotes.length > 0;
    poll.own_votes = viewer.ownVotes;
  }
  return poll;
}
