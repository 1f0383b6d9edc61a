import { findOwnVotes, type PollRow } from '../../db/repos/polls.js';
import type { Deps } from '../deps.js';
import { loadVisiblePoll } from './vote.js';

/** A poll as one viewer sees it: the row, and for a signed-in viewer their choices. */
export interface PollForViewer {
  poll: PollRow;
  /** Null for anonymous viewers. */
  viewer: { ownVotes: number[]; isAuthor: boolean } | null;
}

/** Loads a poll for GET /api/v1/polls/:id: 404 when it does not exist or its status is hidden from the viewer. */
export function getPollForViewer(deps: Deps, pollId: string, viewerAccountId: string | null): PollForViewer {
  const poll = loadVisiblePoll(deps, pollId, viewerAccountId);
  return {
    poll,
    viewer: viewerAccountId === null ? null : { ownVotes: findOwnVotes(deps.db, poll.id, viewerAccountId), isAuthor: poll.account_id === viewerAccountId },
  };
}
