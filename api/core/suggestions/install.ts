import { findStatusById } from '../../db/repos/statuses.js';
import {
  addCandidateScore,
  deleteCandidate,
  deleteCandidatesBetween,
  follows,
  isLocalUserAccount,
  trimCandidates,
} from '../../db/repos/suggestions.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import type { Events } from '../events.js';

/** How much each kind of interaction counts toward suggesting its target (the spec's weights). */
export const INTERACTION_WEIGHTS = { reply: 1, favourite: 10, reblog: 20 } as const;

/** Candidates kept per user (the best ones), as Mastodon's interaction tracker keeps them. */
export const MAX_CANDIDATES = 80;
/** A candidate not interacted with for this long is forgotten (90 days). */
export const CANDIDATE_LIFETIME_MS = 90 * 86_400_000;

/**
 * Records that local user `accountId` interacted with `targetAccountId`. Only interactions toward
 * accounts the user does not follow make candidates; interacting with oneself counts for nothing.
 */
export function recordInteraction(deps: Deps, accountId: string, targetAccountId: string, kind: keyof typeof INTERACTION_WEIGHTS): void {
  if (accountId === targetAccountId) return;
  const db = deps.db;
  if (!isLocalUserAccount(db, accountId) || follows(db, accountId, targetAccountId)) return;
  const at = now();
  db.transaction(() => {
    addCandidateScore(db, accountId, targetAccountId, INTERACTION_WEIGHTS[kind], at);
    trimCandidates(db, accountId, MAX_CANDIDATES, at - CANDIDATE_LIFETIME_MS);
  });
}

/**
 * What blocking does to suggestions (the blocks work calls this after a block commits): the
 * suggestion is removed on both sides, so neither is suggested to the other again by their past
 * interactions, even after an unblock.
 */
export function onBlocked(deps: Deps, accountId: string, targetAccountId: string): void {
  deleteCandidatesBetween(deps.db, accountId, targetAccountId);
}

/**
 * What muting does to suggestions (the mutes work calls this after a mute commits): the muted
 * account stops being suggested to the muter. The muted account is not told anything, so the
 * muter stays in its suggestions.
 */
export function onMuted(deps: Deps, accountId: string, targetAccountId: string): void {
  deleteCandidate(deps.db, accountId, targetAccountId);
}

const installed = new WeakSet<Events>();

/**
 * Subscribes follow suggestions to core events (createApp calls it once; calling it again on the
 * same event bus does nothing):
 * - status.created: a reply toward an account not followed weighs 1;
 * - favourite.created: 10; reblog.created: 20;
 * - follow.created / follow_request.created: the followed account stops being a candidate, so it
 *   does not come back from past interactions after an unfollow.
 */
export function installSuggestions(deps: Deps): void {
  if (installed.has(deps.events)) return;
  installed.add(deps.events);
  const { events, db } = deps;

  events.on('status.created', ({ statusId, accountId }) => {
    const status = findStatusById(db, statusId);
    // A reblog is also announced as a status; it weighs through 'reblog.created'.
    if (!status || status.reblog_of_id !== null || status.in_reply_to_account_id === null) return;
    recordInteraction(deps, accountId, status.in_reply_to_account_id, 'reply');
  });

  events.on('favourite.created', ({ statusId, accountId }) => {
    const status = findStatusById(db, statusId);
    if (status) recordInteraction(deps, accountId, status.account_id, 'favourite');
  });

  events.on('reblog.created', ({ reblogOfId, accountId }) => {
    const original = findStatusById(db, reblogOfId);
    if (original) recordInteraction(deps, accountId, original.account_id, 'reblog');
  });

  events.on('follow.created', ({ accountId, targetAccountId }) => deleteCandidate(db, accountId, targetAccountId));
  events.on('follow_request.created', ({ accountId, targetAccountId }) => deleteCandidate(db, accountId, targetAccountId));
}
