import type { AccountRow } from '../../db/repos/accounts.js';
import { findOwnVotes, insertPollVote, recountPoll } from '../../db/repos/polls.js';
import { findPollsByStatusIds } from '../../db/repos/status-polls.js';
import type { StatusRow } from '../../db/repos/statuses.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';

/**
 * Whether a remote reply is a vote: a Note with a `name` answering a local status that has a poll
 * (with or without `content`: snac sends one, GoToSocial counts a vote only without).
 */
export function pollOfLocalStatus(deps: Deps, status: StatusRow | undefined): { id: string; options: string[]; multiple: boolean; expiresAt: number | null; authorId: string } | null {
  if (!status || status.local !== 1) return null;
  const poll = findPollsByStatusIds(deps.db, [status.id]).get(status.id);
  if (!poll) return null;
  return { id: poll.id, options: JSON.parse(poll.options) as string[], multiple: poll.multiple === 1, expiresAt: poll.expires_at, authorId: poll.account_id };
}

/**
 * A remote account's vote (one option per Note) in a local poll: counted once per option, refused
 * after the end, for an unknown option, by the author, or as a second choice in a single-choice
 * poll. Returns whether it counted; emits 'poll.tallied' when it did.
 */
export function receiveRemoteVote(deps: Deps, voter: AccountRow, status: StatusRow, optionName: string): boolean {
  const poll = pollOfLocalStatus(deps, status);
  if (!poll || poll.authorId === voter.id) return false;
  const choice = poll.options.indexOf(optionName.trim());
  const at = now();
  if (choice < 0 || (poll.expiresAt !== null && poll.expiresAt <= at)) return false;
  const counted = deps.db.transaction(() => {
    const mine = findOwnVotes(deps.db, poll.id, voter.id);
    if (mine.includes(choice) || (!poll.multiple && mine.length > 0)) return false;
    insertPollVote(deps.db, { id: newId(at), poll_id: poll.id, account_id: voter.id, choice, created_at: at });
    recountPoll(deps.db, poll.id, poll.options.length, at);
    return true;
  });
  if (counted) deps.events.emit('poll.tallied', { pollId: poll.id, statusId: status.id, voterAccountId: voter.id });
  return counted;
}
