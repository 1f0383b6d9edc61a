import { findAccountsByIds, findCustomEmojisByShortcodes } from '../../db/repos/accounts.js';
import { findDismissedAmong, findReactionCounts, findReactionEmojis, type AnnouncementRow } from '../../db/repos/announcements.js';
import { findStatusesByIds } from '../../db/repos/statuses.js';
import { findTagByNormalizedName } from '../../db/repos/tags.js';
import type { AnnouncementView, ReactionView } from '../../serializers/announcement.js';
import { extractEmojiShortcodes, normalizeTagName } from '../../util/text/index.js';
import type { Deps } from '../deps.js';
import { processStatusText } from '../statuses/text.js';

/** The status ids an announcement keeps (see `status_ids`). */
function storedStatusIds(row: AnnouncementRow): string[] {
  if (row.status_ids === null) return [];
  try {
    const ids: unknown = JSON.parse(row.status_ids);
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Loads what the entities of some announcements are made of, as Mastodon's serializer reads them:
 * the text rendered like a status typed here (links, mentions of known accounts, hashtags,
 * paragraphs), the accounts it mentions, the hashtags it uses (by their stored name when the tag
 * exists), the instance's custom emojis it names, the linked statuses found when it was published
 * (those still public or unlisted), and the reactions with their counts. With a viewer, whether
 * they gave each reaction and (`withRead`) whether they dismissed it; without one (a streamed
 * announcement) neither is said.
 */
export function loadAnnouncementViews(deps: Deps, rows: readonly AnnouncementRow[], viewerId: string | null, withRead = viewerId !== null): AnnouncementView[] {
  const ids = rows.map((r) => r.id);
  const db = deps.db;

  const counts = findReactionCounts(db, ids, viewerId);
  const emojiById = findReactionEmojis(db, counts.flatMap((c) => (c.custom_emoji_id === null ? [] : [c.custom_emoji_id])));
  const reactions = new Map<string, ReactionView[]>();
  for (const c of counts) {
    const list = reactions.get(c.announcement_id) ?? [];
    list.push({ name: c.name, count: c.count, me: viewerId === null ? null : c.me === 1, emoji: c.custom_emoji_id === null ? null : (emojiById.get(c.custom_emoji_id) ?? null) });
    reactions.set(c.announcement_id, list);
  }

  const statusIds = rows.flatMap(storedStatusIds);
  const statuses = findStatusesByIds(db, statusIds);
  const authors = findAccountsByIds(db, [...statuses.values()].map((s) => s.account_id));
  const dismissed = viewerId !== null && withRead ? findDismissedAmong(db, viewerId, ids) : null;

  return rows.map((row) => {
    const text = processStatusText(deps, row.text);
    const shortcodes = extractEmojiShortcodes(row.text);
    const linked = storedStatusIds(row).flatMap((id) => {
      const status = statuses.get(id);
      const author = status ? authors.get(status.account_id) : undefined;
      if (!status || !author || (status.visibility !== 'public' && status.visibility !== 'unlisted')) return [];
      return [{ status, author }];
    });
    return {
      row,
      html: text.html,
      mentions: text.mentioned,
      statuses: linked,
      tagNames: text.tagNames.map((name) => findTagByNormalizedName(db, normalizeTagName(name))?.name ?? name),
      emojis: findCustomEmojisByShortcodes(db, shortcodes.map((s) => [s, null] as const)),
      reactions: reactions.get(row.id) ?? [],
      read: dismissed === null ? null : dismissed.has(row.id),
    };
  });
}
