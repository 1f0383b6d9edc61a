import { domainToUnicode } from 'node:url';
import { Application, Group, Hashtag, Link, Mention, Organization, PropertyValue, PUBLIC_COLLECTION, Question, Service, type Actor, type Note } from '@fedify/vocab';
import type { RemoteActorData } from '../core/federation/remote-accounts.js';
import type { RemoteQuotingData } from '../core/statuses/quotes-remote.js';
import { escapeHtml } from '../util/text/index.js';
import type { RemoteAttachmentData, RemoteNoteData, RemotePollData } from '../core/federation/remote-statuses.js';
import type { Visibility } from '../db/repos/statuses.js';
import { now } from '../util/clock.js';
import { exportPublicKeyPem } from './keys.js';

function text(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

/**
 * A copy of converted data with every NUL character removed from its strings (in arrays and plain
 * objects too). Remote servers may send them; Mastodon cannot store them, nothing shows them, and
 * passing them on (in the API, or federated again) makes peers choke. Applied to what every
 * `fromAp…` conversion returns, so no remote text reaches the database with one.
 */
export function withoutNul<T>(value: T): T {
  if (typeof value === 'string') return (value.includes('\u0000') ? value.replaceAll('\u0000', '') : value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => withoutNul(v)) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[withoutNul(k)] = withoutNul(v);
    return out as T;
  }
  return value;
}

function href(value: URL | Link | null | undefined): string | null {
  if (!value) return null;
  if (value instanceof URL) return value.href;
  return value.href?.href ?? null;
}

function actorType(actor: Actor): RemoteActorData['actorType'] {
  if (actor instanceof Service) return 'Service';
  if (actor instanceof Group) return 'Group';
  if (actor instanceof Application) return 'Application';
  if (actor instanceof Organization) return 'Organization';
  return 'Person';
}

/**
 * Profile fields read from the actor's JSON as received: `PropertyValue` and `value` come from
 * schema.org, and senders such as snac do not declare that context, so JSON-LD processing drops
 * them (Mastodon reads the plain JSON too). Null when the JSON is not at hand.
 */
function propertyValues(raw: unknown): { name: string; value: string }[] | null {
  const r = record(raw);
  if (!r) return null;
  const list = Array.isArray(r.attachment) ? r.attachment : r.attachment === undefined ? [] : [r.attachment];
  const out: { name: string; value: string }[] = [];
  for (const item of list) {
    const a = record(item);
    if (a && a.type === 'PropertyValue' && typeof a.name === 'string' && typeof a.value === 'string') out.push({ name: a.name, value: a.value });
  }
  return out;
}

/**
 * Reads a remote actor document into account data (`fromAp…`: ActivityPub → rows). Only embedded
 * values are read (icon, image, key, fields); a referenced key is fetched by Fedify's loader.
 * Returns null for an actor without an id or a username.
 */
export async function fromApActor(actor: Actor, raw: unknown = null): Promise<RemoteActorData | null> {
  if (!actor.id || !actor.preferredUsername) return null;
  const key = await actor.getPublicKey().catch(() => null);
  const icon = await actor.getIcon().catch(() => null);
  const image = await actor.getImage().catch(() => null);
  const fields: { name: string; value: string }[] = [];
  const rawFields = propertyValues(raw);
  if (rawFields) fields.push(...rawFields);
  else {
    for await (const a of actor.getAttachments()) {
      if (a instanceof PropertyValue) fields.push({ name: text(a.name), value: text(a.value) });
    }
  }
  const url = actor.url;
  return withoutNul({
    uri: actor.id.href,
    username: text(actor.preferredUsername),
    domain: domainToUnicode(actor.id.hostname).toLowerCase() + (actor.id.port ? `:${actor.id.port}` : ''),
    url: href(url instanceof URL || url instanceof Link ? url : null),
    actorType: actorType(actor),
    displayName: text(actor.name),
    note: text(actor.summary),
    fields,
    locked: actor.manuallyApprovesFollowers ?? false,
    discoverable: actor.discoverable ?? null,
    indexable: actor.indexable ?? false,
    memorial: actor.memorial ?? false,
    avatarUrl: href(icon?.url instanceof URL || icon?.url instanceof Link ? icon.url : null),
    headerUrl: href(image?.url instanceof URL || image?.url instanceof Link ? image.url : null),
    alsoKnownAs: actor.aliasIds.map((u) => u.href),
    movedToUri: actor.successorId?.href ?? null,
    publicKeyPem: key?.publicKey ? await exportPublicKeyPem(key.publicKey) : null,
    inbox: actor.inboxId?.href ?? null,
    outbox: actor.outboxId?.href ?? null,
    sharedInbox: actor.endpoints?.sharedInbox?.href ?? null,
    followers: actor.followersId?.href ?? null,
    following: actor.followingId?.href ?? null,
    featured: actor.featuredId?.href ?? null,
    featuredTags: actor.featuredTagsId?.href ?? null,
  });
}

/**
 * The visibility an object's addressing means, the way Mastodon reads it: Public in `to` is
 * public, in `cc` unlisted; the author's followers collection is followers-only; else direct.
 */
export function visibilityOf(to: readonly URL[], cc: readonly URL[], followersUri: string | null): Visibility {
  const pub = PUBLIC_COLLECTION.href;
  const isPublic = (u: URL) => u.href === pub || u.href === 'as:Public' || u.href === 'Public';
  if (to.some(isPublic)) return 'public';
  if (cc.some(isPublic)) return 'unlisted';
  if (followersUri && [...to, ...cc].some((u) => u.href === followersUri)) return 'private';
  return 'direct';
}

/**
 * The poll of a Question from its JSON as received: `oneOf` (single choice) or `anyOf` (multiple)
 * options with `replies.totalItems` as tallies, `votersCount` (absent before the first tally in
 * snac), and `endTime` or `closed` as the end. Null when there are no options.
 */
export function pollOf(raw: unknown): RemotePollData | null {
  const r = record(raw);
  if (!r) return null;
  const multiple = Array.isArray(r.anyOf) && !Array.isArray(r.oneOf);
  const list = (multiple ? r.anyOf : r.oneOf) as unknown;
  if (!Array.isArray(list)) return null;
  const options: string[] = [];
  const tallies: number[] = [];
  for (const item of list.slice(0, 20)) {
    const o = record(item);
    if (!o || typeof o.name !== 'string') continue;
    options.push(o.name.slice(0, 200));
    const total = record(o.replies)?.totalItems;
    tallies.push(typeof total === 'number' && Number.isFinite(total) && total >= 0 ? Math.floor(total) : 0);
  }
  if (options.length === 0) return null;
  const end = typeof r.endTime === 'string' ? Date.parse(r.endTime) : typeof r.closed === 'string' ? Date.parse(r.closed) : NaN;
  const voters = r.votersCount;
  return withoutNul({ options, tallies, multiple, votersCount: typeof voters === 'number' && voters >= 0 ? Math.floor(voters) : null, expiresAt: Number.isFinite(end) ? end : null });
}

/** What Fedify's typed Document leaves out of an attachment: Mastodon's blurhash and focal point. */
interface RawAttachmentExtras {
  blurhash: string | null;
  focus: { x: number; y: number } | null;
}

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function attachmentUrl(a: Record<string, unknown>): string | null {
  const url = a.url ?? a.href;
  if (typeof url === 'string') return url;
  const first = Array.isArray(url) ? url[0] : url;
  if (typeof first === 'string') return first;
  const link = record(first);
  return typeof link?.href === 'string' ? link.href : null;
}

/**
 * Blurhash and focal point of each attachment, by URL, read from the object's JSON as received
 * (Fedify's vocabulary has no property for either). A blurhash larger than 5×5 components or
 * malformed, and a focal point outside [-1, 1], are ignored.
 */
export function attachmentExtras(raw: unknown): Map<string, RawAttachmentExtras> {
  const out = new Map<string, RawAttachmentExtras>();
  const list = record(raw)?.attachment;
  for (const item of Array.isArray(list) ? list : list === undefined ? [] : [list]) {
    const a = record(item);
    const url = a ? attachmentUrl(a) : null;
    if (!a || !url) continue;
    const blurhash = typeof a.blurhash === 'string' && validBlurhash(a.blurhash) ? a.blurhash : null;
    const fp = a.focalPoint;
    const focus =
      Array.isArray(fp) && fp.length === 2 && fp.every((v) => typeof v === 'number' && Number.isFinite(v) && v >= -1 && v <= 1)
        ? { x: fp[0] as number, y: fp[1] as number }
        : null;
    out.set(url, { blurhash, focus });
  }
  return out;
}

const BLURHASH_CHARS = /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]+$/;

/** A blurhash with at most 5×5 components and the length its size byte announces. */
function validBlurhash(hash: string): boolean {
  if (hash.length < 6 || !BLURHASH_CHARS.test(hash)) return false;
  const size = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~'.indexOf(hash[0] ?? '');
  const x = (size % 9) + 1;
  const y = Math.floor(size / 9) + 1;
  return size >= 0 && x <= 5 && y <= 5 && hash.length === 4 + 2 * x * y;
}

/**
 * Reads a remote Note or Question into status data (embedded tags and attachments only). `raw` is
 * the object's JSON as received, for the attachment properties Fedify does not model.
 */
export async function fromApNote(note: Note | Question, followersUri: string | null, raw: unknown = null): Promise<RemoteNoteData | null> {
  const extras = attachmentExtras(raw);
  if (!note.id) return null;
  const mentionUris: string[] = [];
  const tags: string[] = [];
  for await (const tag of note.getTags()) {
    if (tag instanceof Mention && tag.href) mentionUris.push(tag.href.href);
    else if (tag instanceof Hashtag && tag.name) tags.push(text(tag.name).replace(/^#/, ''));
  }
  const attachments: RemoteAttachmentData[] = [];
  for await (const a of note.getAttachments()) {
    if (a instanceof Link || a instanceof PropertyValue) continue;
    const url = a.url instanceof URL ? a.url.href : a.url instanceof Link ? (a.url.href?.href ?? null) : null;
    if (!url) continue;
    const extra = extras.get(url);
    attachments.push({ url, mediaType: a.mediaType ?? null, description: a.name ? text(a.name) : null, blurhash: extra?.blurhash ?? null, focus: extra?.focus ?? null });
  }
  const content = note.content;
  const quoting = fromApQuoting(note, raw, followersUri);
  // Mastodon sends `content` plain and again in `contentMap` by language: the language is there.
  const localized = [content, ...note.contents].find((c) => c !== null && typeof c === 'object' && 'locale' in c);
  const language = localized ? String(localized.locale.baseName) : null;
  const url = note.url;
  return withoutNul({
    uri: note.id.href,
    url: url instanceof URL ? url.href : url instanceof Link ? (url.href?.href ?? null) : null,
    content: text(content) + legacyQuoteLink(quoting, text(content)),
    spoilerText: text(note.summary),
    sensitive: note.sensitive ?? false,
    language,
    visibility: visibilityOf(note.toIds, note.ccIds, followersUri),
    inReplyToUri: note.replyTargetId?.href ?? null,
    mentionUris,
    tags,
    attachments,
    published: note.published ? note.published.epochMilliseconds : now(),
    updated: note.updated ? note.updated.epochMilliseconds : null,
    poll: note instanceof Question ? pollOf(raw) : null,
    quoting,
  });
}

const PUBLIC_IDS: readonly string[] = [PUBLIC_COLLECTION.href, 'as:Public', 'Public'];

/** The ids in a JSON value that is an id, an object with an id, or a list of those. */
function idsOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return list.map((v) => (typeof v === 'string' ? v : typeof record(v)?.id === 'string' ? String(record(v)?.id) : null)).filter((v): v is string => v !== null);
}

/**
 * One approval list of `interactionPolicy.canQuote` as Mastodon reads it: the public collection,
 * the author's followers and following collections are what it models; the author's own id means
 * nothing more; anything else is a policy it does not model (`unsupported_policy`).
 */
function quoteApprovalFlags(ids: readonly string[], followersUri: string | null, actorUri: string | null): number {
  let flags = 0;
  for (const id of new Set(ids)) {
    if (PUBLIC_IDS.includes(id)) flags |= 2;
    else if (followersUri !== null && id === followersUri) flags |= 4;
    // Mastodon compares with the author's `following`; we know it by its conventional path.
    else if (actorUri !== null && id === `${actorUri}/following`) flags |= 8;
    else if (id !== actorUri) flags |= 1;
  }
  return flags;
}

/**
 * What a Note says about quotes (`fromAp…`): the status it quotes, taken as Mastodon takes it,
 * first of FEP-044f `quote`, Misskey's `_misskey_quote`, `quoteUrl` and Fedibird's `quoteUri`
 * (read from the JSON as received, since senders do not all declare these terms; Fedify's
 * properties otherwise), legacy unless named by `quote`; its `quoteAuthorization`; and who may
 * quote it (`interactionPolicy.canQuote`, none: nobody but the author).
 */
export function fromApQuoting(note: Note | Question, raw: unknown, followersUri: string | null): RemoteQuotingData {
  const r = record(raw);
  const actorUri = note.attributionId?.href ?? null;
  let quote: RemoteQuotingData['quote'] = null;
  if (r) {
    for (const key of ['quote', '_misskey_quote', 'quoteUrl', 'quoteUri']) {
      const uri = idsOf(r[key])[0];
      if (uri && URL.canParse(uri)) {
        quote = { uri, legacy: !('quote' in r), approvalUri: idsOf(r.quoteAuthorization)[0] ?? null };
        break;
      }
    }
  } else {
    const uri = note.quoteId?.href ?? note.quoteUrl?.href ?? null;
    if (uri) quote = { uri, legacy: note.quoteId === null, approvalUri: note.quoteAuthorizationId?.href ?? null };
  }
  let automatic: string[];
  let manual: string[];
  const canQuote = record(record(r?.interactionPolicy)?.canQuote);
  if (r) {
    automatic = idsOf(canQuote?.automaticApproval);
    manual = idsOf(canQuote?.manualApproval);
  } else {
    const rule = note.interactionPolicy?.canQuote ?? null;
    automatic = rule ? rule.automaticApprovals.map((u) => u.href) : [];
    manual = rule ? rule.manualApprovals.map((u) => u.href) : [];
  }
  return { quote, policy: { automatic: quoteApprovalFlags(automatic, followersUri, actorUri), manual: quoteApprovalFlags(manual, followersUri, actorUri) } };
}

/**
 * A link to the quoted status for a quote named the old way, when the text does not link it
 * already: such quotes are not shown as quotes until approved (they seldom are), so the text is
 * the only place the quoted status can be seen from. '' otherwise.
 */
function legacyQuoteLink(quoting: RemoteQuotingData, content: string): string {
  const uri = quoting.quote?.legacy ? quoting.quote.uri : null;
  if (uri === null || content.includes(uri) || content.includes(escapeHtml(uri))) return '';
  return `<p class="quote-inline">RE: <a href="${escapeHtml(uri)}">${escapeHtml(uri)}</a></p>`;
}
