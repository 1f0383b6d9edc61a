import { withRelaxedDurability } from '../../db/connection.js';
import { insertUserActivity } from '../../db/repos/admin-metrics.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { DAY_MS } from './measures-period.js';

/**
 * Records that a user used the instance today (one row per user and UTC day in
 * user_activity_days): what the `active_users` measure and the retention cohorts count. Called on
 * every request made with a user's token; a memo per instance keeps it to one write per user and
 * day. The write may be lost in a power cut (a figure on the dashboard, not something anyone was
 * told was stored), so it does not wait for the disk.
 */
export function recordUserActivity(deps: Deps, userId: string): void {
  const day = Math.floor(now() / DAY_MS);
  const seen = memoOf(deps);
  if (seen.get(userId) === day) return;
  seen.set(userId, day);
  // A failure to record (a full disk, a user deleted meanwhile) must not fail the request.
  try {
    withRelaxedDurability(() => deps.db.transaction(() => insertUserActivity(deps.db, day, userId)));
  } catch (err) {
    seen.delete(userId);
    console.warn('could not record user activity', err);
  }
}

const memos = new WeakMap<Deps, Map<string, number>>();

function memoOf(deps: Deps): Map<string, number> {
  let memo = memos.get(deps);
  if (!memo) memos.set(deps, (memo = new Map()));
  return memo;
}
