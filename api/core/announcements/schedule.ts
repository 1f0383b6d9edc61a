import { findAnnouncement, findDueAnnouncementIds, findEndedAnnouncementIds, updateAnnouncement } from '../../db/repos/announcements.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { flushAnnouncementEvents, queuePublished, queueWithdrawn } from './outbox.js';

/**
 * The job scheduler's task for announcements (every second, and once at start, so whatever came
 * due while the server was stopped is done then): publishes the scheduled ones whose time has come
 * (Mastodon's PublishScheduledAnnouncementWorker), withdraws published ones whose end has passed
 * (as Mastodon's scheduler unpublishes expired ones; users' streams also hear they are gone), and
 * sends the queued streaming events, those of the command line included. Everything is read from
 * the database, so nothing is lost across a restart. Returns how many were published.
 */
export function runAnnouncementSchedule(deps: Deps, batch = 50): number {
  let published = 0;
  const at = now();
  for (const id of findDueAnnouncementIds(deps.db, at, batch)) {
    deps.db.transaction(() => {
      // Looked at again inside the transaction: it may have been published or deleted meanwhile.
      const row = findAnnouncement(deps.db, id);
      if (!row || row.published === 1 || row.scheduled_at === null || row.scheduled_at > at) return;
      updateAnnouncement(deps.db, id, { published: 1, published_at: at, scheduled_at: null, updated_at: at });
      queuePublished(deps, { ...row, published: 1 }, at);
      published++;
    });
  }
  for (const id of findEndedAnnouncementIds(deps.db, at, batch)) {
    deps.db.transaction(() => {
      updateAnnouncement(deps.db, id, { published: 0, scheduled_at: null });
      queueWithdrawn(deps, id, at);
    });
  }
  flushAnnouncementEvents(deps);
  return published;
}
