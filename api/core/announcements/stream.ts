import { findCurrentAnnouncement, findLocalEnabledEmoji, findReactionCounts, findReactionEmojis } from '../../db/repos/announcements.js';
import { toMastodonAnnouncement, toMastodonReaction, type MastodonAnnouncement, type MastodonReaction } from '../../serializers/announcement.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { loadAnnouncementViews } from './present.js';

/** The payload of an `announcement.reaction` event. */
export type AnnouncementReactionPayload = MastodonReaction & { announcement_id: string };

/**
 * An announcement as the streams send it: rendered for nobody (no `read`, no `me`), as Mastodon
 * renders it once for everyone. Null when users no longer see it.
 */
export function streamedAnnouncement(deps: Deps, announcementId: string): MastodonAnnouncement | null {
  const row = findCurrentAnnouncement(deps.db, announcementId, now());
  if (!row) return null;
  const [view] = loadAnnouncementViews(deps, [row], null);
  return view ? toMastodonAnnouncement(view, deps.uris) : null;
}

/**
 * The `announcement.reaction` payload: the reaction's name and its count now (0 once the last one
 * was taken back), the custom emoji's pictures for a custom one, and the announcement's id. Null
 * when users no longer see the announcement (no reaction news about a deleted one).
 */
export function announcementReactionPayload(deps: Deps, announcementId: string, name: string): AnnouncementReactionPayload | null {
  const row = findCurrentAnnouncement(deps.db, announcementId, now());
  if (!row) return null;
  const counted = findReactionCounts(deps.db, [row.id], null).find((c) => c.name === name);
  const emojiId = counted?.custom_emoji_id ?? null;
  const emoji = emojiId !== null ? (findReactionEmojis(deps.db, [emojiId]).get(emojiId) ?? null) : (findLocalEnabledEmoji(deps.db, name) ?? null);
  return { ...toMastodonReaction({ name, count: counted?.count ?? 0, me: null, emoji }, deps.uris), announcement_id: row.id };
}
