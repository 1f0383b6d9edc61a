import {
  countOtherReactionNames,
  deleteReaction,
  findCurrentAnnouncement,
  findLocalEnabledEmoji,
  hasReaction,
  insertDismissal,
  insertReaction,
  listCurrentAnnouncements,
  reactionNameExists,
  type AnnouncementRow,
} from '../../db/repos/announcements.js';
import { toMastodonAnnouncement, type MastodonAnnouncement } from '../../serializers/announcement.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import { isId, newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { Problems } from '../filters/problems.js';
import { isUnicodeEmoji } from './emoji.js';
import { loadAnnouncementViews } from './present.js';

/** How many different reactions one announcement may have (Mastodon's ReactionValidator::LIMIT). */
export const REACTION_LIMIT = 8;

/** An announcement users see now (published, not ended), or 404 as Mastodon answers for any other. */
function currentOr404(deps: Deps, id: string): AnnouncementRow {
  const row = isId(id) ? findCurrentAnnouncement(deps.db, id, now()) : undefined;
  if (!row) throw notFound();
  return row;
}

/**
 * The announcements a user sees: every published one that has not ended, in chronological order,
 * with `read` telling which they dismissed (Mastodon 4 lists dismissed ones too). With
 * `withDismissed` false (the parameter of Mastodon 3.1, which left them out by default), the
 * dismissed ones are left out.
 */
export function listUserAnnouncements(deps: Deps, accountId: string, options: { withDismissed?: boolean | undefined } = {}): MastodonAnnouncement[] {
  const views = loadAnnouncementViews(deps, listCurrentAnnouncements(deps.db, now()), accountId);
  return views.filter((v) => options.withDismissed !== false || v.read !== true).map((v) => toMastodonAnnouncement(v, deps.uris));
}

/** Marks an announcement read for the user (again is fine); 404 for one users do not see. */
export function dismissAnnouncement(deps: Deps, accountId: string, announcementId: string): void {
  const row = currentOr404(deps, announcementId);
  insertDismissal(deps.db, row.id, accountId, now());
}

/**
 * Adds the user's reaction: a Unicode emoji or the shortcode of one of the instance's enabled
 * custom emojis. Giving one the user already gave changes nothing. Otherwise Mastodon's checks
 * apply (422, nothing written): a name that is no emoji, and a ninth different reaction. The
 * streams hear the new count.
 */
export function addAnnouncementReaction(deps: Deps, accountId: string, announcementId: string, name: string): void {
  const added = deps.db.transaction(() => {
    const row = currentOr404(deps, announcementId);
    if (hasReaction(deps.db, row.id, accountId, name)) return null;
    const emoji = name === '' ? undefined : findLocalEnabledEmoji(deps.db, name);
    const problems = new Problems();
    if (name.trim() === '') problems.blank('name', 'Name');
    else if (!emoji && !isUnicodeEmoji(name)) problems.add('name', 'Name', 'ERR_INVALID', 'is not a recognized emoji');
    if (!reactionNameExists(deps.db, row.id, name) && countOtherReactionNames(deps.db, row.id, name) >= REACTION_LIMIT) {
      problems.add('base', '', 'ERR_INVALID', 'Limit of different reactions reached');
    }
    problems.throwIfAny();
    const at = now();
    insertReaction(deps.db, { id: newId(at), announcement_id: row.id, account_id: accountId, name, custom_emoji_id: emoji?.id ?? null, created_at: at });
    return row.id;
  });
  if (added !== null) deps.events.emit('announcement.reaction', { announcementId: added, name });
}

/** Removes the user's reaction; 404 when they had not given it (or users do not see the announcement). */
export function removeAnnouncementReaction(deps: Deps, accountId: string, announcementId: string, name: string): void {
  const id = deps.db.transaction(() => {
    const row = currentOr404(deps, announcementId);
    if (!deleteReaction(deps.db, row.id, accountId, name)) throw notFound();
    return row.id;
  });
  deps.events.emit('announcement.reaction', { announcementId: id, name });
}
