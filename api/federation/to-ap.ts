import { Temporal } from '@js-temporal/polyfill';
import {
  Announce,
  Application,
  Collection,
  Question,
  CryptographicKey,
  Document,
  Endpoints,
  Group,
  Hashtag,
  Image,
  InteractionPolicy,
  InteractionRule,
  Mention,
  Multikey,
  Note,
  Person,
  PropertyValue,
  PUBLIC_COLLECTION,
  Service,
  Tombstone,
  type Actor,
} from '@fedify/vocab';
import { QUOTE_FLAGS } from '../core/statuses/quote-policy.js';
import type { NoteContext } from '../core/federation/local.js';
import { parseProfileFields, parseStringList, type AccountRow } from '../db/repos/accounts.js';
import type { StatusRow } from '../db/repos/statuses.js';
import { statusUri, statusUrl } from '../serializers/status.js';
import type { Uris } from '../util/uris.js';

/** An account's actor id, local or remote. */
export function actorUri(account: AccountRow, uris: Uris): string {
  return account.uri ?? uris.accountUri(account.username);
}

function instant(ms: number): Temporal.Instant {
  return Temporal.Instant.fromEpochMilliseconds(ms);
}

/** The keys of an actor as Fedify hands them to the actor dispatcher. */
export interface ActorKeys {
  cryptographicKey: CryptographicKey;
  multikey: Multikey;
}

/**
 * A local account as its ActivityPub actor (`toAp…`: rows → ActivityPub): Person, or Service for
 * bots, Group for groups, with its collections, shared inbox, key (`#main-key`) and Multikey,
 * profile fields as PropertyValue, avatar and header, and the flags Mastodon publishes.
 */
export function toApActor(account: AccountRow, uris: Uris, keys: readonly ActorKeys[], avatarUrl: string | null, headerUrl: string | null, movedTo: string | null): Actor {
  const u = account.username;
  const values = {
    id: new URL(uris.accountUri(u)),
    preferredUsername: u,
    name: account.display_name,
    summary: account.note,
    url: new URL(uris.accountUrl(u)),
    inbox: new URL(uris.inboxUri(u)),
    outbox: new URL(uris.outboxUri(u)),
    followers: new URL(uris.followersUri(u)),
    following: new URL(uris.followingUri(u)),
    featured: new URL(uris.featuredUri(u)),
    featuredTags: new URL(uris.featuredTagsUri(u)),
    endpoints: new Endpoints({ sharedInbox: new URL(uris.sharedInboxUri()) }),
    publicKey: keys[0]?.cryptographicKey ?? null,
    assertionMethods: keys.map((k) => k.multikey),
    manuallyApprovesFollowers: account.locked === 1,
    discoverable: account.discoverable === 1,
    indexable: account.indexable === 1,
    memorial: account.memorial === 1,
    published: instant(account.created_at),
    icon: avatarUrl ? new Image({ url: new URL(avatarUrl) }) : null,
    image: headerUrl ? new Image({ url: new URL(headerUrl) }) : null,
    attachments: parseProfileFields(account.fields).map((f) => new PropertyValue({ name: f.name, value: f.value })),
    aliases: parseStringList(account.also_known_as).map((a) => new URL(a)),
    successor: movedTo ? new URL(movedTo) : null,
  };
  if (account.actor_type === 'Service') return new Service(values);
  if (account.actor_type === 'Group') return new Group(values);
  if (account.actor_type === 'Application') return new Application(values);
  return new Person(values);
}

/** What an Announce names: the reblog (its id, visibility and time) and the status it reblogs. */
export interface AnnounceParts {
  /** The Announce's id: the reblog's URI. */
  id: string;
  visibility: StatusRow['visibility'];
  /** When the reblog was made (ms), or null when it is not known (an Undo of a deleted reblog). */
  published: number | null;
  /** The reblogged status's URI and its author's actor id. */
  object: { uri: string; authorUri: string } | null;
}

/**
 * A local reblog as its Announce (`toAp…`), addressed as Mastodon addresses one: a public reblog to
 * everyone with the followers in cc, the others to the followers (an unlisted one with the public
 * in cc), the reblogged author always in cc; `published` the reblog's time.
 */
export function toApAnnounce(parts: AnnounceParts, author: AccountRow, uris: Uris): Announce {
  const followers = new URL(uris.followersUri(author.username));
  const original = parts.object ? [new URL(parts.object.authorUri)] : [];
  const tos = parts.visibility === 'public' ? [PUBLIC_COLLECTION] : [followers];
  const ccs = parts.visibility === 'public' ? [...original, followers] : parts.visibility === 'unlisted' ? [...original, PUBLIC_COLLECTION] : original;
  return new Announce({
    id: new URL(parts.id),
    actor: new URL(actorUri(author, uris)),
    object: parts.object ? new URL(parts.object.uri) : null,
    tos,
    ccs,
    published: parts.published === null ? null : instant(parts.published),
  });
}

/** The `to` and `cc` of a status by its visibility, as Mastodon addresses them. */
export function addressing(status: StatusRow, author: AccountRow, mentioned: readonly AccountRow[], uris: Uris): { to: URL[]; cc: URL[] } {
  const followers = new URL(author.followers_url ?? uris.followersUri(author.username));
  const mentions = mentioned.map((a) => new URL(actorUri(a, uris)));
  switch (status.visibility) {
    case 'public':
      return { to: [PUBLIC_COLLECTION], cc: [followers, ...mentions] };
    case 'unlisted':
      return { to: [followers], cc: [PUBLIC_COLLECTION, ...mentions] };
    case 'private':
      return { to: [followers], cc: mentions };
    default:
      return { to: mentions, cc: [] };
  }
}

/**
 * A local status as it is delivered: a Question when it has a poll (options with their tallies,
 * `endTime`, `closed` once ended, and votersCount), else the Note.
 */
export function toApStatusObject(status: StatusRow, author: AccountRow, context: NoteContext, uris: Uris, at: number): Note | Question {
  const note = toApNote(status, author, context, uris);
  const poll = context.polls.get(status.id);
  if (!poll) return note;
  const titles = JSON.parse(poll.options) as string[];
  const tallies = JSON.parse(poll.tallies) as number[];
  const options = titles.map((name, i) => new Note({ name, replies: new Collection({ totalItems: tallies[i] ?? 0 }) }));
  const ended = poll.expires_at !== null && poll.expires_at <= at;
  return new Question({
    id: note.id,
    attribution: note.attributionId,
    content: note.content,
    summary: note.summary,
    sensitive: note.sensitive,
    url: note.url instanceof URL ? note.url : null,
    published: note.published,
    updated: note.updated,
    replyTarget: note.replyTargetId,
    tos: note.toIds,
    ccs: note.ccIds,
    tags: toApNoteTags(status, context, uris),
    attachments: toApAttachments(status, context, uris),
    ...toApQuoteFields(status, author, context, uris),
    ...(poll.multiple ? { inclusiveOptions: options } : { exclusiveOptions: options }),
    endTime: poll.expires_at === null ? null : instant(poll.expires_at),
    closed: ended && poll.expires_at !== null ? instant(poll.expires_at) : null,
    voters: poll.voters_count,
  });
}

/**
 * The accounts a status names: its mentions, but for the quoted author when only silently
 * mentioned (so that they can read the quote): delivered to, never tagged nor addressed.
 */
function namedAccounts(status: StatusRow, context: NoteContext): AccountRow[] {
  const silent = context.quoting.quotes.get(status.id)?.silentAccountId ?? null;
  const mentioned = context.mentions.get(status.id) ?? [];
  return silent === null ? mentioned : mentioned.filter((a) => a.id !== silent);
}

/**
 * What a Note says about quotes, as Mastodon 4.5 publishes it: the quoted status (FEP-044f
 * `quote`, and the older `quoteUrl`, `_misskey_quote` and `quoteUri` for other software; a
 * Tombstone once the quoted status is gone), the `quoteAuthorization` of an approved quote, and
 * who may quote it (`interactionPolicy.canQuote`: automatic approval only; nobody but the author
 * is the author's own id).
 */
function toApQuoteFields(status: StatusRow, author: AccountRow, context: NoteContext, uris: Uris): { quote: URL | Tombstone | null; quoteUrl: URL | null; quoteAuthorization: URL | null; interactionPolicy: InteractionPolicy } {
  const quote = context.quoting.quotes.get(status.id);
  const flags = context.quoting.policies.get(status.id)?.automatic ?? 0;
  const approved: URL[] = [];
  if (flags & QUOTE_FLAGS.public) approved.push(PUBLIC_COLLECTION);
  if (flags & QUOTE_FLAGS.followers) approved.push(new URL(author.followers_url ?? uris.followersUri(author.username)));
  if (flags & QUOTE_FLAGS.following) approved.push(new URL(uris.followingUri(author.username)));
  if (approved.length === 0) approved.push(new URL(actorUri(author, uris)));
  return {
    quote: quote ? (quote.quotedUri ? new URL(quote.quotedUri) : new Tombstone({})) : null,
    quoteUrl: quote?.quotedUri ? new URL(quote.quotedUri) : null,
    quoteAuthorization: quote?.authorization ? new URL(quote.authorization) : null,
    interactionPolicy: new InteractionPolicy({ canQuote: new InteractionRule({ automaticApprovals: approved }) }),
  };
}

function toApNoteTags(status: StatusRow, context: NoteContext, uris: Uris): (Mention | Hashtag)[] {
  const mentioned = namedAccounts(status, context);
  return [
    ...mentioned.map((a) => new Mention({ href: new URL(actorUri(a, uris)), name: `@${a.username}${a.domain ? `@${a.domain}` : ''}` })),
    ...(context.tags.get(status.id) ?? []).map((t) => new Hashtag({ href: new URL(uris.tagUrl(t)), name: `#${t}` })),
  ];
}

function toApAttachments(status: StatusRow, context: NoteContext, uris: Uris): Document[] {
  return (context.media.get(status.id) ?? []).map(
    (m) =>
      new Document({
        mediaType: m.file_content_type,
        url: new URL(m.file_key ? uris.fileUrl(m.file_key) : (m.remote_url ?? uris.base)),
        name: m.description,
      }),
  );
}

/** A local status as a Note, with mentions, hashtags, attachments, its quote and quote policy. */
export function toApNote(status: StatusRow, author: AccountRow, context: NoteContext, uris: Uris): Note {
  const mentioned = namedAccounts(status, context);
  const { to, cc } = addressing(status, author, mentioned, uris);
  const parent = status.in_reply_to_id ? context.parents.get(status.in_reply_to_id) : undefined;
  const replyTo = parent ? statusUri(parent.status, parent.author, uris) : status.in_reply_to_uri;
  const url = statusUrl(status, author, uris);
  return new Note({
    id: new URL(statusUri(status, author, uris)),
    attribution: new URL(actorUri(author, uris)),
    content: status.content,
    summary: status.spoiler_text || null,
    sensitive: status.sensitive === 1,
    url: url ? new URL(url) : null,
    published: instant(status.created_at),
    updated: status.edited_at ? instant(status.edited_at) : null,
    replyTarget: replyTo ? new URL(replyTo) : null,
    tos: to,
    ccs: cc,
    tags: toApNoteTags(status, context, uris),
    attachments: toApAttachments(status, context, uris),
    ...toApQuoteFields(status, author, context, uris),
  });
}
