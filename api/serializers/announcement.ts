import type { AccountRow, CustomEmojiRow } from '../db/repos/accounts.js';
import type { AnnouncementRow } from '../db/repos/announcements.js';
import type { StatusRow } from '../db/repos/statuses.js';
import { isoTime } from '../util/clock.js';
import type { Uris } from '../util/uris.js';
import { toMastodonCustomEmoji, type CustomEmoji } from './custom-emoji.js';
import { toMastodonMention, type MastodonMention } from './status.js';
import { toMastodonStatusTag, type MastodonStatusTag } from './tag.js';

/** Mastodon's Reaction entity (an emoji reaction to an announcement). */
export interface MastodonReaction {
  name: string;
  count: number;
  /** Only for a signed-in viewer. */
  me?: boolean;
  /** Only for a custom emoji. */
  url?: string;
  static_url?: string;
}

/** Announcement::Status: a status the announcement links to. */
export interface MastodonAnnouncementStatus {
  id: string;
  url: string;
}

/** Mastodon's Announcement entity, as users get it. */
export interface MastodonAnnouncement {
  id: string;
  content: string;
  starts_at: string | null;
  ends_at: string | null;
  all_day: boolean;
  published_at: string;
  updated_at: string;
  /** Only for a signed-in viewer (streamed announcements have none). */
  read?: boolean;
  /** Announcement::Account has the shape of Status::Mention. */
  mentions: MastodonMention[];
  statuses: MastodonAnnouncementStatus[];
  tags: MastodonStatusTag[];
  emojis: CustomEmoji[];
  reactions: MastodonReaction[];
}

/**
 * An announcement as the staff manage it (Hearth's admin method; Mastodon has none): the user
 * entity without `read`, plus the raw text, whether it is published and when it is scheduled.
 * `published_at` is null until it is first published.
 */
export interface MastodonAdminAnnouncement extends Omit<MastodonAnnouncement, 'read' | 'published_at'> {
  text: string;
  published: boolean;
  published_at: string | null;
  scheduled_at: string | null;
  created_at: string;
}

/** One reaction name as loaded: its count, whether the viewer gave it (null: no viewer), its custom emoji. */
export interface ReactionView {
  name: string;
  count: number;
  me: boolean | null;
  emoji: CustomEmojiRow | null;
}

/** Everything an announcement's entity is made of, loaded by core (see core/announcements/present.ts). */
export interface AnnouncementView {
  row: AnnouncementRow;
  /** The text rendered as HTML (links, mentions, hashtags, paragraphs). */
  html: string;
  mentions: AccountRow[];
  statuses: { status: StatusRow; author: AccountRow }[];
  tagNames: string[];
  emojis: CustomEmojiRow[];
  reactions: ReactionView[];
  /** Whether the viewer dismissed it; null without a viewer (the attribute is left out). */
  read: boolean | null;
}

/** The Reaction entity; `me` only when known, `url` and `static_url` only for a custom emoji. */
export function toMastodonReaction(reaction: ReactionView, uris: Uris): MastodonReaction {
  const out: MastodonReaction = { name: reaction.name, count: reaction.count };
  if (reaction.me !== null) out.me = reaction.me;
  const emoji = reaction.emoji ? toMastodonCustomEmoji(reaction.emoji, uris) : null;
  if (emoji) {
    out.url = emoji.url;
    out.static_url = emoji.static_url;
  }
  return out;
}

/** Where a linked status is seen: a local one's page here, a remote one's own URL. */
function statusUrl(status: StatusRow, author: AccountRow, uris: Uris): string {
  return status.local === 1 ? uris.statusUrl(author.username, status.id) : (status.url ?? status.uri ?? '');
}

function time(ms: number | null): string | null {
  return ms === null ? null : isoTime(ms);
}

/** The parts users and staff both get, in Mastodon's order. */
function common(view: AnnouncementView) {
  const { row } = view;
  return {
    id: row.id,
    content: view.html,
    starts_at: time(row.starts_at),
    ends_at: time(row.ends_at),
    // False without a time range, as the entity documents it.
    all_day: row.all_day === 1 && row.starts_at !== null && row.ends_at !== null,
  };
}

function associations(view: AnnouncementView, uris: Uris) {
  return {
    mentions: view.mentions.map((a) => toMastodonMention(a, uris)),
    statuses: view.statuses.map(({ status, author }) => ({ id: status.id, url: statusUrl(status, author, uris) })),
    tags: view.tagNames.map((name) => toMastodonStatusTag({ name }, uris)),
    emojis: view.emojis.map((e) => toMastodonCustomEmoji(e, uris)).filter((e): e is CustomEmoji => e !== null),
    reactions: view.reactions.map((r) => toMastodonReaction(r, uris)),
  };
}

/** The Announcement entity; `read` only when the view has a viewer. */
export function toMastodonAnnouncement(view: AnnouncementView, uris: Uris): MastodonAnnouncement {
  const { row } = view;
  return {
    ...common(view),
    published_at: isoTime(row.published_at ?? row.created_at),
    updated_at: isoTime(row.updated_at),
    ...(view.read === null ? {} : { read: view.read }),
    ...associations(view, uris),
  };
}

/** The staff's view of an announcement (see MastodonAdminAnnouncement). */
export function toMastodonAdminAnnouncement(view: AnnouncementView, uris: Uris): MastodonAdminAnnouncement {
  const { row } = view;
  return {
    ...common(view),
    text: row.text,
    published: row.published === 1,
    published_at: time(row.published_at),
    scheduled_at: time(row.scheduled_at),
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    ...associations(view, uris),
  };
}
