import { domainToUnicode } from 'node:url';
import { Application, Group, Hashtag, Link, Mention, Organization, PropertyValue, PUBLIC_COLLECTION, Service, type Actor, type Note, type Question } from '@fedify/vocab';
import type { RemoteActorData } from '../core/federation/remote-accounts.js';
import type { RemoteAttachmentData, RemoteNoteData } from '../core/federation/remote-statuses.js';
import type { Visibility } from '../db/repos/statuses.js';
import { now } from '../util/clock.js';
import { exportPublicKeyPem } from './keys.js';

function text(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
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
 * Reads a remote actor document into account data (`fromAp…`: ActivityPub → rows). Only embedded
 * values are read (icon, image, key, fields); a referenced key is fetched by Fedify's loader.
 * Returns null for an actor without an id or a username.
 */
export async function fromApActor(actor: Actor): Promise<RemoteActorData | null> {
  if (!actor.id || !actor.preferredUsername) return null;
  const key = await actor.getPublicKey().catch(() => null);
  const icon = await actor.getIcon().catch(() => null);
  const image = await actor.getImage().catch(() => null);
  const fields: { name: string; value: string }[] = [];
  for await (const a of actor.getAttachments()) {
    if (a instanceof PropertyValue) fields.push({ name: text(a.name), value: text(a.value) });
  }
  const url = actor.url;
  return {
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
  };
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

/** Reads a remote Note or Question into status data (embedded tags and attachments only). */
export async function fromApNote(note: Note | Question, followersUri: string | null): Promise<RemoteNoteData | null> {
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
    attachments.push({ url, mediaType: a.mediaType ?? null, description: a.name ? text(a.name) : null, blurhash: null, focus: null });
  }
  const content = note.content;
  const language = content !== null && typeof content === 'object' && 'locale' in content ? String(content.locale.baseName) : null;
  const url = note.url;
  return {
    uri: note.id.href,
    url: url instanceof URL ? url.href : url instanceof Link ? (url.href?.href ?? null) : null,
    content: text(content),
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
  };
}
