import { insertOutboxEvent, takeOutboxEvents, updateAnnouncement, type AnnouncementRow } from '../../db/repos/announcements.js';
import type { Deps } from '../deps.js';
import { linkedStatusIds } from './links.js';

/**
 * Streaming of announcements goes through an outbox: every change users should hear of writes an
 * event row in its own transaction, and `flushAnnouncementEvents` turns the rows into core events
 * (which streaming sends). The server flushes right after a change it makes, and its scheduler
 * every second, which is how a change made by the command line (another process, with nobody
 * listening) reaches the running server's streams.
 */

/**
 * Marks a published announcement as (re)published for the streams (inside the caller's
 * transaction): the statuses its text links to are resolved again, as Mastodon does each time it
 * sends one, and an `announcement` event is queued.
 */
export function queuePublished(deps: Deps, row: AnnouncementRow, at: number): void {
  updateAnnouncement(deps.db, row.id, { status_ids: JSON.stringify(linkedStatusIds(deps, row.text)) });
  insertOutboxEvent(deps.db, row.id, 'announcement', at);
}

/** Queues an `announcement.delete` (inside the caller's transaction): users stop seeing it. */
export function queueWithdrawn(deps: Deps, announcementId: string, at: number): void {
  insertOutboxEvent(deps.db, announcementId, 'announcement.delete', at);
}

/**
 * Emits the queued events, oldest first, as `announcement.published` and `announcement.deleted`
 * core events, and forgets them. Returns how many there were.
 */
export function flushAnnouncementEvents(deps: Deps): number {
  const events = deps.db.transaction(() => takeOutboxEvents(deps.db));
  for (const e of events) {
    if (e.event === 'announcement') deps.events.emit('announcement.published', { announcementId: e.announcement_id });
    else deps.events.emit('announcement.deleted', { announcementId: e.announcement_id });
  }
  return events.length;
}
