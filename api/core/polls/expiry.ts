import { findEndedUnannouncedPolls, markPollEndAnnounced } from '../../db/repos/polls.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';

/**
 * Announces polls that have ended: each poll whose expires_at has passed and whose end was not
 * announced yet is marked (ended_notified = 1) and then 'poll.ended' is emitted for it, once. The
 * mark is committed before the event, so a restart never announces a poll twice (a crash between
 * the two loses the announcement rather than repeating it). Returns how many polls were announced.
 */
export function announceEndedPolls(deps: Deps, batch = 100): number {
  const due = findEndedUnannouncedPolls(deps.db, now(), batch);
  if (due.length === 0) return 0;
  const marked = deps.db.transaction(() => due.filter((p) => markPollEndAnnounced(deps.db, p.id)));
  for (const p of marked) deps.events.emit('poll.ended', { pollId: p.id, statusId: p.status_id });
  return marked.length;
}
