import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import { findOwnVotes, findPollById, insertPollVote, recountPoll, type PollRow } from '../../db/repos/polls.js';
import { findStatusById } from '../../db/repos/statuses.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import { Problems } from '../filters/problems.js';
import { isId, newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { canViewStatus } from '../statuses/visibility.js';

/**
 * Loads a poll whose status the viewer may see; 404 when the poll does not exist or its status is
 * hidden from the viewer (Mastodon's answer for both), which includes a status whose author is
 * suspended (StatusPolicy#show? refuses an unavailable author to everyone).
 */
export function loadVisiblePoll(deps: Deps, pollId: string, viewerAccountId: string | null): PollRow {
  const poll = isId(pollId) ? findPollById(deps.db, pollId) : undefined;
  const status = poll ? findStatusById(deps.db, poll.status_id) : undefined;
  if (!poll || !status || !canViewStatus(deps, status, viewerAccountId)) throw notFound();
  const author = findAccountById(deps.db, status.account_id);
  if (!author || author.suspended_at !== null) throw notFound();
  return poll;
}

function countOptions(poll: PollRow): number {
  const options: unknown = JSON.parse(poll.options);
  return Array.isArray(options) ? options.length : 0;
}

/**
 * Votes in a poll with the given option indices and returns the poll's id. Checked as Mastodon's
 * VoteValidator does, every broken rule named in one 422 and nothing written:
 * the poll has not ended, each choice exists, the voter is not the poll's author, and the voter
 * has not voted yet (a single-choice poll takes exactly one choice; choices are not repeated).
 */
export function voteInPoll(deps: Deps, account: AccountRow, pollId: string, choices: readonly number[]): string {
  const poll = loadVisiblePoll(deps, pollId, account.id);
  const optionCount = countOptions(poll);
  const at = now();
  deps.db.transaction(() => {
    // Validated inside the transaction, so that two concurrent requests cannot both vote.
    const problems = new Problems();
    if (poll.expires_at !== null && poll.expires_at <= at) problems.add('base', '', 'ERR_EXPIRED', 'The poll has already ended');
    if (choices.some((c) => !Number.isInteger(c) || c < 0 || c >= optionCount)) {
      problems.add('base', '', 'ERR_INVALID_CHOICE', 'The chosen vote option does not exist');
    }
    if (poll.account_id === account.id) problems.add('base', '', 'ERR_SELF_VOTE', 'You cannot vote in your own polls');
    const repeated = new Set(choices).size !== choices.length;
    const alreadyVoted = findOwnVotes(deps.db, poll.id, account.id).length > 0;
    // A second choice on a single-choice poll is, for Mastodon, a second vote.
    if (alreadyVoted || repeated || (!poll.multiple && choices.length > 1)) {
      problems.add('base', '', 'ERR_ALREADY_VOTED', 'You have already voted on this poll');
    }
    problems.throwIfAny();
    for (const choice of choices) {
      insertPollVote(deps.db, { id: newId(at), poll_id: poll.id, account_id: account.id, choice, created_at: at });
    }
    recountPoll(deps.db, poll.id, optionCount, at);
  });
  deps.events.emit('poll.voted', { pollId: poll.id, statusId: poll.status_id, accountId: account.id, choices: [...choices] });
  return poll.id;
}
