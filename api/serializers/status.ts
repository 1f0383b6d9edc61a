import type { AccountRow, CustomEmojiRow } from '../db/repos/accounts.js';
import type { MediaRow } from '../db/repos/media.js';
import type { PollRow } from '../db/repos/polls.js';
import type { PreviewCardRow } from '../db/repos/preview-cards.js';
import type { QuotePolicyFlags } from '../db/repos/quotes.js';
import type { StatusRow, Visibility } from '../db/repos/statuses.js';
import type { TagRow } from '../db/repos/tags.js';
import { isoTime } from '../util/clock.js';
import type { Uris } from '../util/uris.js';
import { accountAcct, toMastodonAccount, type AccountView, type MastodonAccount } from './account.js';
import { toMastodonCustomEmoji, type CustomEmoji } from './custom-emoji.js';
import type { MastodonFilterResult } from './filter.js';
import { toMastodonMediaAttachment, type MastodonMediaAttachment } from './media-attachment.js';
import { toMastodonPoll, type MastodonPoll, type PollViewer } from './poll.js';
import { toMastodonPreviewCard, type MastodonPreviewCard } from './preview-card.js';
import { toMastodonQuote, type MastodonQuote, type MastodonQuoteApproval, type MastodonShallowQuote, type QuoteView } from './quote.js';
import { toMastodonStatusTag, type MastodonStatusTag } from './tag.js';

/** Status::Mention: an account the status mentions in its text. */
export interface MastodonMention {
  id: string;
  username: string;
  acct: string;
  url: string;
}

export type { MastodonQuoteApproval } from './quote.js';

/** Mastodon's Status entity, as the REST API returns it. */
export interface MastodonStatus {
  id: string;
  created_at: string;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  sensitive: boolean;
  spoiler_text: string;
  visibility: Visibility;
  language: string | null;
  uri: string;
  url: string | null;
  replies_count: number;
  reblogs_count: number;
  favourites_count: number;
  quotes_count: number;
  edited_at: string | null;
  favourited?: boolean;
  reblogged?: boolean;
  muted?: boolean;
  bookmarked?: boolean;
  pinned?: boolean;
  content: string;
  /** Raw source; only in the answer to DELETE (for redraft). */
  text?: string;
  /** The viewer's filters that match it (any context); only for a signed-in viewer. */
  filtered?: MastodonFilterResult[];
  reblog: MastodonStatus | null;
  application?: { name: string; website: string | null } | null;
  account: MastodonAccount;
  media_attachments: MastodonMediaAttachment[];
  mentions: MastodonMention[];
  tags: MastodonStatusTag[];
  emojis: CustomEmoji[];
  /** A Quote, or a ShallowQuote inside a quoted status; null when it quotes nothing shown. */
  quote: MastodonQuote<MastodonStatus> | MastodonShallowQuote | null;
  quote_approval: MastodonQuoteApproval;
  card: MastodonPreviewCard | null;
  poll: MastodonPoll | null;
}

/** Mastodon's StatusSource entity (GET /api/v1/statuses/:id/source). */
export interface MastodonStatusSource {
  id: string;
  text: string;
  spoiler_text: string;
}

/** What the viewer has done with a status; null for anonymous viewers (the flags are then left out). */
export interface StatusViewerFlags {
  favourited: boolean;
  reblogged: boolean;
  bookmarked: boolean;
  muted: boolean;
  /** Null when the status is not the viewer's to pin (the attribute is then left out). */
  pinned: boolean | null;
}

/**
 * Everything needed to render one status, loaded in batches by core (`loadStatusViews`).
 * Serializing it touches no database.
 */
export interface StatusView {
  status: StatusRow;
  /** The author's account row (handles, URIs). */
  author: AccountRow;
  /** The author as the Account entity is built from. */
  account: AccountView;
  /** The reblogged status, for a reblog. */
  reblog: StatusView | null;
  /** Accounts mentioned in the text (silent mentions are not listed). */
  mentions: AccountRow[];
  tags: Pick<TagRow, 'name'>[];
  /** Attached media in order. */
  media: MediaRow[];
  /** The custom emojis its text and content warning use. */
  emojis: CustomEmojiRow[];
  /** The preview card of its first link. */
  card: PreviewCardRow | null;
  poll: PollRow | null;
  pollViewer: PollViewer | null;
  application: { name: string; website: string | null } | null;
  viewer: StatusViewerFlags | null;
  /** The viewer is its author (a sensitized author still sees their statuses as they wrote them). */
  viewedByAuthor: boolean;
  /** The viewer's matching filters (core computes them per batch); [] when absent. */
  filtered?: MastodonFilterResult[];
  /** The time the view was loaded (poll expiry is judged against it). */
  at: number;
  /** Its quote as the viewer sees it (the quoted status one level deep), or null. */
  quote: QuoteView<StatusView> | null;
  /** How many accepted quotes it has. */
  quotesCount: number;
  /** Who may quote it (flags), and what that means for the viewer. */
  quotePolicy: QuotePolicyFlags;
  quoteApproval: MastodonQuoteApproval;
}

/** The ActivityPub id of a status (local ones are built from the origin). */
export function statusUri(status: Pick<StatusRow, 'id' | 'uri'>, author: Pick<AccountRow, 'username'>, uris: Uris): string {
  return status.uri ?? uris.statusUri(author.username, status.id);
}

/** The web page of a status. */
export function statusUrl(status: Pick<StatusRow, 'id' | 'url' | 'uri' | 'local'>, author: Pick<AccountRow, 'username'>, uris: Uris): string | null {
  if (status.local) return uris.statusUrl(author.username, status.id);
  return status.url ?? status.uri;
}

/** Status::Mention of a mentioned account. */
export function toMastodonMention(account: AccountRow, uris: Uris): MastodonMention {
  return {
    id: account.id,
    username: account.username,
    acct: accountAcct(account),
    url: account.domain === null ? uris.accountUrl(account.username) : (account.url ?? account.uri ?? ''),
  };
}

/**
 * The Status entity. Viewer flags appear only for a signed-in viewer; `pinned` only when the
 * viewer may pin it. With `source`, the raw `text` is added (the answer to DELETE, for redraft).
 */
export function toMastodonStatus(view: StatusView, uris: Uris, options: { source?: boolean } = {}): MastodonStatus {
  const s = view.status;
  const out: MastodonStatus = {
    id: s.id,
    created_at: isoTime(s.created_at),
    in_reply_to_id: s.in_reply_to_id,
    in_reply_to_account_id: s.in_reply_to_account_id,
    // A moderator marked the author's media sensitive (Mastodon's force-sensitive accounts): so
    // everyone but the author sees it, as Mastodon's serializer does.
    sensitive: Boolean(s.sensitive) || (view.author.sensitized_at !== null && !view.viewedByAuthor),
    spoiler_text: s.spoiler_text,
    visibility: s.visibility,
    language: s.language,
    uri: statusUri(s, view.author, uris),
    url: statusUrl(s, view.author, uris),
    replies_count: s.replies_count,
    reblogs_count: s.reblogs_count,
    favourites_count: s.favourites_count,
    quotes_count: view.quotesCount,
    edited_at: s.edited_at === null ? null : isoTime(s.edited_at),
    content: s.content,
    reblog: view.reblog ? toMastodonStatus(view.reblog, uris) : null,
    account: toMastodonAccount(view.account, uris),
    media_attachments: view.media.map((m) => toMastodonMediaAttachment(m, uris)),
    mentions: view.mentions.map((a) => toMastodonMention(a, uris)),
    tags: view.tags.map((t) => toMastodonStatusTag(t, uris)),
    emojis: view.emojis.map((e) => toMastodonCustomEmoji(e, uris)).filter((e): e is CustomEmoji => e !== null),
    quote: view.quote ? toMastodonQuote(view.quote, (quoted) => toMastodonStatus(quoted, uris)) : null,
    quote_approval: view.quoteApproval,
    card: view.card ? toMastodonPreviewCard(view.card, uris) : null,
    poll: view.poll ? toMastodonPoll(view.poll, view.pollViewer, view.at) : null,
  };
  if (options.source) out.text = s.text;
  // Remote statuses carry no application; local ones say which app posted them (null when none).
  if (s.local) out.application = view.application;
  if (view.viewer) {
    out.favourited = view.viewer.favourited;
    out.reblogged = view.viewer.reblogged;
    out.muted = view.viewer.muted;
    out.bookmarked = view.viewer.bookmarked;
    if (view.viewer.pinned !== null) out.pinned = view.viewer.pinned;
    out.filtered = view.filtered ?? [];
  }
  return out;
}

/** The StatusSource entity: what the author typed, for editing. */
export function toMastodonStatusSource(status: StatusRow): MastodonStatusSource {
  return { id: status.id, text: status.text, spoiler_text: status.spoiler_text };
}
