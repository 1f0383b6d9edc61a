import { derivedTransaction, findFollowedAccounts, upsertFeedState } from '../../db/repos/feeds.js';
import { followsOf } from '../../db/repos/follows.js';
import { nextTurn } from '../../util/background-lane.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { exclusiveListMembers } from '../lists/timeline.js';
import { followOptions, mergeAccountIntoHome } from './fanout.js';
import { timelineState } from './state.js';

/** Followed accounts merged per transaction; between chunks the event loop serves requests. */
const CHUNK_ACCOUNTS = 10;

/**
 * Rebuilds a user's home feed from their own recent statuses and those of the accounts they
 * follow (visible to them, with the home filters). The feed is marked as regenerating at once
 * (synchronously), so that GET home answers 206 with what the feed holds meanwhile; the work runs
 * in chunks, one transaction each, yielding to the event loop in between; the marker is cleared
 * at the end. A second call while one runs returns the same promise. If the instance stops in the
 * middle, the marker stays and the next GET home starts again.
 */
export function rebuildHomeFeed(deps: Deps, accountId: string): Promise<void> {
  const state = timelineState(deps);
  const running = state.rebuilding.get(accountId);
  if (running) return running;
  upsertFeedState(deps.db, accountId, true, null);
  const work = runRebuild(deps, accountId)
    .catch((err: unknown) => {
      // A closed database (the instance stopped) ends the rebuild quietly; anything else is a bug.
      if (deps.db.raw.open) console.error(`home feed rebuild for ${accountId} failed`, err);
    })
    .finally(() => state.rebuilding.delete(accountId));
  state.rebuilding.set(accountId, work);
  return work;
}

/** True while a rebuild of this user's feed runs in this process. */
export function isRebuilding(deps: Deps, accountId: string): boolean {
  return timelineState(deps).rebuilding.has(accountId);
}

async function runRebuild(deps: Deps, accountId: string): Promise<void> {
  const db = deps.db;
  await nextTurn();
  if (!db.raw.open) return;
  const all = findFollowedAccounts(db, accountId);
  const followed = new Set(all.map((f) => f.target_account_id));
  // Members of the user's exclusive lists stay out of the home feed (as fan-out does).
  const exclusive = exclusiveListMembers(deps, accountId);
  const follows = all.filter((f) => !exclusive.has(f.target_account_id));
  derivedTransaction(db, () => mergeAccountIntoHome(deps, accountId, accountId, null, followed));
  for (let i = 0; i < follows.length; i += CHUNK_ACCOUNTS) {
    await nextTurn();
    if (!db.raw.open) return;
    const chunk = follows.slice(i, i + CHUNK_ACCOUNTS);
    derivedTransaction(db, () => {
      // Read again in the chunk's transaction: an account unfollowed since the rebuild began
      // (its statuses already left the feed) must not be merged back.
      const current = followsOf(db, accountId, chunk.map((f) => f.target_account_id));
      for (const f of chunk) {
        const follow = current.get(f.target_account_id);
        if (follow) mergeAccountIntoHome(deps, accountId, f.target_account_id, followOptions(follow), followed);
      }
    });
  }
  upsertFeedState(db, accountId, false, now());
}
