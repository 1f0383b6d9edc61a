import {
  deleteAnnouncement as deleteAnnouncementRow,
  findAnnouncement,
  insertAnnouncement,
  listAllAnnouncements,
  updateAnnouncement as updateAnnouncementRow,
  type AnnouncementRow,
} from '../../db/repos/announcements.js';
import { toMastodonAdminAnnouncement, type MastodonAdminAnnouncement } from '../../serializers/announcement.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { resolveAnnouncementFields, type AnnouncementParams } from './input.js';
import { queuePublished, queueWithdrawn } from './outbox.js';
import { loadAnnouncementViews } from './present.js';

/**
 * The staff's side of announcements (the admin API and `hearth announcement`): create, edit,
 * publish, unpublish, delete, list. Who may call these is checked by the callers
 * (staff.ts); the command line is trusted. Each change that users should hear of queues a
 * streaming event in the same transaction (outbox.ts); callers in the server flush it.
 */

/** Loads any announcement by id (404 when there is none). */
export function findAnnouncementOr404(deps: Deps, id: string): AnnouncementRow {
  const row = isId(id) ? findAnnouncement(deps.db, id) : undefined;
  if (!row) throw notFound();
  return row;
}

/** The staff entity of one announcement. */
export function presentAdminAnnouncement(deps: Deps, row: AnnouncementRow): MastodonAdminAnnouncement {
  const [view] = loadAnnouncementViews(deps, [row], null);
  if (!view) throw new Error('announcement view vanished');
  return toMastodonAdminAnnouncement(view, deps.uris);
}

/** Every announcement's row, published or not, newest first (the command line's list). */
export function listAnnouncementRows(deps: Deps): AnnouncementRow[] {
  return listAllAnnouncements(deps.db);
}

/** Every announcement, published or not, newest first (the staff's list). */
export function listAdminAnnouncements(deps: Deps): MastodonAdminAnnouncement[] {
  return loadAnnouncementViews(deps, listAllAnnouncements(deps.db), null).map((v) => toMastodonAdminAnnouncement(v, deps.uris));
}

/**
 * Creates an announcement. As Mastodon does, it is published at once unless it is scheduled for
 * later (a `scheduled_at` in the past publishes at once); a scheduled one is published by the job
 * scheduler when its time comes. 422 (nothing written) when the fields do not pass the checks.
 */
export function createAnnouncement(deps: Deps, params: AnnouncementParams): AnnouncementRow {
  const fields = resolveAnnouncementFields(params, null);
  const at = now();
  const published = fields.scheduled_at === null || fields.scheduled_at <= at;
  const values: Omit<AnnouncementRow, 'id'> = {
    text: fields.text,
    published: published ? 1 : 0,
    all_day: fields.all_day ? 1 : 0,
    scheduled_at: fields.scheduled_at,
    starts_at: fields.starts_at,
    ends_at: fields.ends_at,
    published_at: published ? at : null,
    status_ids: null,
    created_at: at,
    updated_at: at,
  };
  const id = deps.db.transaction(() => {
    const row = { ...values, id: insertAnnouncement(deps.db, values) };
    if (published) queuePublished(deps, row, at);
    return row.id;
  });
  return findAnnouncementOr404(deps, id);
}

/**
 * Edits an announcement: the fields given change, the others stay (a time given empty is
 * cleared). A published one is sent again to the streams. An unpublished one given a scheduled time
 * that has come is published now, as the scheduler would at its next look. 404 for an unknown id,
 * 422 (nothing written) when the result does not pass the checks.
 */
export function updateAnnouncement(deps: Deps, id: string, params: AnnouncementParams): AnnouncementRow {
  return deps.db.transaction(() => {
    const current = findAnnouncementOr404(deps, id);
    const fields = resolveAnnouncementFields(params, current);
    const at = now();
    const publishNow = current.published === 0 && params.scheduled_at !== undefined && fields.scheduled_at !== null && fields.scheduled_at <= at;
    updateAnnouncementRow(deps.db, id, {
      text: fields.text,
      all_day: fields.all_day ? 1 : 0,
      starts_at: fields.starts_at,
      ends_at: fields.ends_at,
      scheduled_at: publishNow ? null : fields.scheduled_at,
      ...(publishNow ? { published: 1, published_at: at } : {}),
      updated_at: at,
    });
    const row = findAnnouncementOr404(deps, id);
    if (row.published === 1) queuePublished(deps, row, at);
    return findAnnouncementOr404(deps, id);
  });
}

/** Publishes an announcement now (again, if it already was: Mastodon's `publish!`), dropping its schedule. */
export function publishAnnouncement(deps: Deps, id: string): AnnouncementRow {
  return deps.db.transaction(() => {
    findAnnouncementOr404(deps, id);
    const at = now();
    updateAnnouncementRow(deps.db, id, { published: 1, published_at: at, scheduled_at: null, updated_at: at });
    queuePublished(deps, findAnnouncementOr404(deps, id), at);
    return findAnnouncementOr404(deps, id);
  });
}

/** Withdraws an announcement from users (and drops its schedule); users' streams hear it is gone. */
export function unpublishAnnouncement(deps: Deps, id: string): AnnouncementRow {
  return deps.db.transaction(() => {
    const current = findAnnouncementOr404(deps, id);
    const at = now();
    updateAnnouncementRow(deps.db, id, { published: 0, scheduled_at: null, updated_at: at });
    if (current.published === 1) queueWithdrawn(deps, id, at);
    return findAnnouncementOr404(deps, id);
  });
}

/**
 * Deletes an announcement with its dismissals and reactions; if users saw it, their streams hear it
 * is gone (and nothing more about its reactions). 404 for an unknown id.
 */
export function deleteAnnouncement(deps: Deps, id: string): void {
  deps.db.transaction(() => {
    const current = findAnnouncementOr404(deps, id);
    deleteAnnouncementRow(deps.db, id);
    if (current.published === 1) queueWithdrawn(deps, id, now());
  });
}
