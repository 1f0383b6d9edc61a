// What the cache publisher publishes for each target (see 0073_relay_published.sql): the URLs
// the instance publishes (api/util/uris.ts, the dispatchers of api/federation/, the well-known
// routes), each requested as a peer requests it. How documents are rendered, compared and sent is
// publisher.ts's business; this file only says which ones make up a target.
import type { Deps } from '../core/deps.js';
import { findAccountById, type AccountRow } from '../db/repos/accounts.js';
import { listLocalEmojiRows } from '../db/repos/instance.js';
import { findMediaByStatusIds } from '../db/repos/media.js';
import { findStatusById, type StatusRow } from '../db/repos/statuses.js';
import { now } from '../util/clock.js';
import { INSTANCE_ACTOR_IDENTIFIER } from '../util/uris.js';
import { ACTIVITY_JSON, keyOfUrl, webfingerKey, webfingerPath } from './publisher-render.js';

/** How a target's documents reach the relay (implemented by the publisher). */
export interface TargetSink {
  /**
   * Renders `path` with `accept` and publishes it under `key` (default: the path) and `aliases`.
   * Resolves to the body, or null when the instance does not serve it (it is then not published).
   */
  document(path: string, accept: string, options?: { key?: string; aliases?: string[] }): Promise<Buffer | null>;
  /** Publishes a stored file (`/system/…`); files never change under a key, so one on the relay already is not sent again. */
  file(path: string): Promise<void>;
  /** Publishes the 410 Tombstone of a deleted object with id `id` under `key`. */
  tombstone(key: string, id: string, deletedAt: number): Promise<void>;
  /** Keys this target published before (a deleted status's key when nothing else names it). */
  recorded(): string[];
  /** What was published is not final yet (media still processing): the target is looked at again later. */
  later(): void;
}

/** What a status.deleted mark carries: the status is gone by the time it is published. */
export interface DeletedStatusPayload {
  uri: string;
  deletedAt: number;
}

/** Targets that name a local account: `<kind>:<account id>`. */
export const ACCOUNT_TARGET_KINDS = ['account', 'outbox', 'followers', 'following', 'featured', 'featured_tags'] as const;

/** A local, not suspended account by id. */
function localAccount(deps: Deps, id: string): AccountRow | undefined {
  const account = /^[0-9]+$/.test(id) ? findAccountById(deps.db, id) : undefined;
  return account && account.domain === null && account.suspended_at === null ? account : undefined;
}

/** Whether a status is one the instance serves to anyone: its own, public or unlisted, not a reblog. */
export function isPublicOwnStatus(status: Pick<StatusRow, 'local' | 'visibility' | 'reblog_of_id'>): boolean {
  return status.local === 1 && status.reblog_of_id === null && (status.visibility === 'public' || status.visibility === 'unlisted');
}

/** The `first` page named by a collection, as a path on the instance (null when it names none here). */
function firstPageOf(body: Buffer, base: string): string | null {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof doc !== 'object' || doc === null) return null;
  const first = (doc as { first?: unknown }).first;
  const id = typeof first === 'string' ? first : typeof first === 'object' && first !== null ? (first as { id?: unknown }).id : null;
  if (typeof id !== 'string' || !id.startsWith(`${base}/`)) return null;
  return keyOfUrl(id);
}

/** A collection and its first page (peers read the totals from the one and items from the other). */
async function collection(deps: Deps, sink: TargetSink, url: string): Promise<void> {
  const body = await sink.document(keyOfUrl(url), ACTIVITY_JSON);
  const first = body ? firstPageOf(body, deps.uris.base) : null;
  if (first) await sink.document(first, ACTIVITY_JSON);
}

/** The WebFinger answer for a handle, under its `acct:` key and the actor URL's. */
async function webfinger(sink: TargetSink, handle: string, actorUri: string): Promise<void> {
  const resource = `acct:${handle}`;
  await sink.document(webfingerPath(resource), 'application/jrd+json', { key: webfingerKey(resource), aliases: [webfingerKey(actorUri)] });
}

/** The documents of a local account: its actor, its WebFinger answer, its avatar and header. */
async function account(deps: Deps, sink: TargetSink, account: AccountRow): Promise<void> {
  const actor = deps.uris.accountUri(account.username);
  const served = await sink.document(keyOfUrl(actor), ACTIVITY_JSON);
  // Not served (a suspended account): nothing of it is published.
  if (!served) return;
  await webfinger(sink, `${account.username}@${deps.uris.domain}`, actor);
  const files = new Set([account.avatar_file, account.avatar_static_file, account.header_file, account.header_static_file]);
  for (const file of files) if (file) await sink.file(keyOfUrl(deps.uris.fileUrl(file)));
}

/** A status as the instance serves it, with its media; the Tombstone once it is gone. */
async function status(deps: Deps, sink: TargetSink, id: string, payload: DeletedStatusPayload | null): Promise<void> {
  const row = /^[0-9]+$/.test(id) ? findStatusById(deps.db, id) : undefined;
  if (!row) {
    // Deleted: a public one (the deletion's mark says so, or it was published) leaves a Tombstone.
    const key = payload ? keyOfUrl(payload.uri) : sink.recorded().find((k) => /\/statuses\/[0-9]+$/.test(k));
    if (key) await sink.tombstone(key, payload?.uri ?? `${deps.uris.base}${key}`, payload?.deletedAt ?? now());
    return;
  }
  // Followers-only and direct statuses (and reblogs, and others' statuses) are never published, nor their media.
  if (!isPublicOwnStatus(row)) return;
  const author = localAccount(deps, row.account_id);
  if (!author) return;
  const served = await sink.document(keyOfUrl(deps.uris.statusUri(author.username, row.id)), ACTIVITY_JSON);
  if (!served) return;
  for (const media of findMediaByStatusIds(deps.db, [row.id])) {
    // A video still being processed gets its files (and the status its final attachment) later, without an event.
    if (media.processing === 'queued' || media.processing === 'processing') sink.later();
    for (const key of new Set([media.file_key, media.preview_key])) if (key) await sink.file(keyOfUrl(deps.uris.fileUrl(key)));
  }
}

function parsePayload(payload: string | null): DeletedStatusPayload | null {
  if (!payload) return null;
  try {
    const value = JSON.parse(payload) as Partial<DeletedStatusPayload>;
    return typeof value.uri === 'string' && typeof value.deletedAt === 'number' ? { uri: value.uri, deletedAt: value.deletedAt } : null;
  } catch {
    return null;
  }
}

/**
 * Publishes the documents of one target through `sink`. A target whose entity is gone or not
 * public publishes nothing (the publisher then removes what it published before), but a deleted
 * status, which leaves its Tombstone.
 */
export async function renderTarget(deps: Deps, target: string, payload: string | null, sink: TargetSink): Promise<void> {
  const colon = target.indexOf(':');
  const kind = colon === -1 ? target : target.slice(0, colon);
  const id = colon === -1 ? '' : target.slice(colon + 1);
  const uris = deps.uris;
  switch (kind) {
    case 'instance': {
      await sink.document('/.well-known/host-meta', 'application/xrd+xml');
      await sink.document('/.well-known/nodeinfo', 'application/json');
      const actor = uris.instanceActorUri();
      if (await sink.document(keyOfUrl(actor), ACTIVITY_JSON)) await webfinger(sink, `${uris.domain}@${uris.domain}`, actor);
      return;
    }
    case 'nodeinfo':
      await sink.document('/nodeinfo/2.0', 'application/json');
      await sink.document('/nodeinfo/2.1', 'application/json');
      return;
    case 'emojis':
      for (const emoji of listLocalEmojiRows(deps.db)) {
        for (const file of new Set([emoji.image_file, emoji.static_file])) if (file) await sink.file(keyOfUrl(uris.fileUrl(file)));
      }
      return;
    case 'status':
      await status(deps, sink, id, parsePayload(payload));
      return;
    default:
      break;
  }
  const owner = (ACCOUNT_TARGET_KINDS as readonly string[]).includes(kind) ? localAccount(deps, id) : undefined;
  // The instance actor's identifier is never a username; the account's collections are published only while it is.
  if (!owner || owner.username === INSTANCE_ACTOR_IDENTIFIER) return;
  const name = owner.username;
  switch (kind) {
    case 'account':
      return account(deps, sink, owner);
    case 'outbox':
      return collection(deps, sink, uris.outboxUri(name));
    case 'followers':
      return collection(deps, sink, uris.followersUri(name));
    case 'following':
      return collection(deps, sink, uris.followingUri(name));
    case 'featured':
      return collection(deps, sink, uris.featuredUri(name));
    case 'featured_tags':
      return collection(deps, sink, uris.featuredTagsUri(name));
  }
}
