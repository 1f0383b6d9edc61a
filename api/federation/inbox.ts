import type { Federation, InboxContext } from '@fedify/fedify';
import { Accept, Activity, Add, Announce, Block, Create, Delete, Flag, Follow, Like, Move, QuoteRequest, Reject, Remove, Undo, Update, isActor, type Actor } from '@fedify/vocab';
import type { Deps } from '../core/deps.js';
import { receiveRemoteFollow, receiveRemoteUnfollow, remoteAcceptedFollow, remoteFollowOf, remoteRejectedFollow } from '../core/federation/follows.js';
import { isDeletedActor } from '../core/federation/delete-actor.js';
import { findLocalActor } from '../core/federation/local.js';
import { federatesWith } from '../core/federation/instance-domains.js';
import { blocksSenderDomain, receiveRemoteUnblock } from '../core/federation/moderation.js';
import { findRemoteAccount, upsertRemoteAccount } from '../core/federation/remote-accounts.js';
import { deleteRemoteReblog } from '../core/federation/remote-statuses.js';
import { isTombstonedInbound, tombstoneInbound } from '../core/federation/tombstones.js';
import { unfavouriteStatus } from '../core/interactions/favourites.js';
import type { AccountRow } from '../db/repos/accounts.js';
import { storeEmojiTags } from './emoji-tags.js';
import { fromApActor } from './from-ap.js';
import { onAnnounce, onBlock, onCreate, onDelete, onFeatured, onFlag, onLike, onMove, statusByUri } from './inbox-content.js';
import { cachedSignedLoader, DOCUMENT_TTL_MS } from './loader.js';
import { now } from '../util/clock.js';
import { onUpdateWithFeatured, syncFeaturedLater } from './featured-sync.js';
import { sendAccept } from './outbound.js';
import { KEY_UNAVAILABLE_HEADER } from './express.js';
import { onQuoteAccept, onQuoteReject, onQuoteRequest } from './quotes-inbox.js';

export type Ctx = InboxContext<Deps>;

/** The local account an actor URL names, if it is one of ours. */
export function localAccountOf(ctx: Ctx | { data: Deps; parseUri(u: URL | null): { type: string; identifier?: string } | null }, url: URL | null): AccountRow | undefined {
  const parsed = ctx.parseUri(url);
  if (parsed?.type !== 'actor' || !parsed.identifier) return undefined;
  return findLocalActor(ctx.data, parsed.identifier);
}

/** Options for dereferencing in listeners: signed GETs sharing Fedify's document cache. */
export async function loaderOptions(ctx: Ctx): Promise<{ documentLoader: Awaited<ReturnType<typeof cachedSignedLoader>>; contextLoader: Ctx['contextLoader'] }> {
  return { documentLoader: await cachedSignedLoader(ctx), contextLoader: ctx.contextLoader };
}

/** Stores (or refreshes) a remote actor; null for one of ours or one without a username. */
export async function storeActor(ctx: Ctx, actor: Actor, raw: unknown): Promise<AccountRow | null> {
  if (!actor.id || localAccountOf(ctx, actor.id)) return null;
  const data = await fromApActor(actor, raw);
  if (!data) return null;
  await storeEmojiTags(ctx.data, actor, data.domain);
  const row = upsertRemoteAccount(ctx.data, data);
  // Pins and featured tags follow in the background (throttled per account), not blocking the inbox.
  syncFeaturedLater(ctx, row);
  return row;
}

/**
 * The sender of an activity as a stored remote account, fetched (signed, cached) and upserted.
 * Fedify has already checked that the signing key belongs to this actor.
 */
export async function remoteSender(ctx: Ctx, activity: Activity): Promise<AccountRow | null> {
  if (!activity.actorId) return null;
  // Our own actors never arrive through the inbox as senders.
  if (localAccountOf(ctx, activity.actorId)) return null;
  if (!federatesWith(ctx.data, activity.actorId.host)) return null;
  // An actor that deleted itself stays deleted: what it (or a replay) sends later is ignored. One
  // never known here that deleted itself has a tombstone of its own URI instead (see onDelete).
  if (isDeletedActor(ctx.data, activity.actorId.href) || isTombstonedInbound(ctx.data, activity.actorId.href, activity.actorId.href)) return null;
  // Stored within the document cache's lifetime: a refresh would read the same cached document
  // and write the same row, which cost most of an inbound activity. Profile changes come as
  // Update(actor) (stored by onUpdate), and a stale account is fetched again.
  const known = findRemoteAccount(ctx.data, activity.actorId.href);
  // An account suspended here is heard only when it takes something back or updates itself, as
  // Mastodon ignores a suspended actor's other activities (core/admin suspends accounts).
  if (known && known.suspended_at !== null && !(activity instanceof Delete || activity instanceof Undo || activity instanceof Reject || activity instanceof Update)) return null;
  if (known && known.last_fetched_at !== null && now() - known.last_fetched_at < DOCUMENT_TTL_MS) return known;
  const options = await loaderOptions(ctx);
  // Loaded first for its JSON as served (see fromApActor); getActor then reads it from the cache.
  const document = await options.documentLoader(activity.actorId.href).catch(() => null);
  const actor = await activity.getActor(options);
  if (!actor || !isActor(actor) || actor.id?.href !== activity.actorId.href) return null;
  return storeActor(ctx, actor, document?.document ?? null);
}

/**
 * Whether the activity's own actor has already undone or deleted `id` (an inbound tombstone, see
 * core/federation/tombstones.ts): the activity arrived after its Undo or Delete, or again after
 * it, and changes nothing. Checked before the sender is fetched.
 */
export function tombstonedForSender(ctx: Ctx, activity: Activity, id: URL | null): boolean {
  return id !== null && activity.actorId !== null && isTombstonedInbound(ctx.data, id.href, activity.actorId.href);
}

/**
 * Whether a Delete or Undo from `actorId` may leave a tombstone although its sender is not (or not
 * yet) stored here: a remote actor of a domain we federate with, not one that deleted itself.
 */
export function mayTombstone(ctx: Ctx, actorId: URL): boolean {
  return !localAccountOf(ctx, actorId) && federatesWith(ctx.data, actorId.host) && !isDeletedActor(ctx.data, actorId.href);
}

async function onFollow(ctx: Ctx, follow: Follow): Promise<void> {
  const target = localAccountOf(ctx, follow.objectId);
  if (!target || !follow.id || tombstonedForSender(ctx, follow, follow.id)) return;
  const follower = await remoteSender(ctx, follow);
  if (!follower || blocksSenderDomain(ctx.data, target, follower)) return;
  const outcome = receiveRemoteFollow(ctx.data, follower, target.id, follow.id.href);
  // An unlocked account accepts at once; a locked one answers when its owner decides.
  if (outcome.kind === 'followed') await sendAccept(ctx, target, follower, follow);
}

async function followOf(ctx: Ctx, activity: Accept | Reject | Undo): Promise<{ follower: AccountRow | undefined; targetUri: URL | null } | null> {
  // The Follow is ours (another origin than the Accept): trusted only to find a pending request
  // from that local account to the sender, which is all it is used for.
  const object = await activity.getObject({ ...(await loaderOptions(ctx)), crossOrigin: 'trust' }).catch(() => null);
  if (object instanceof Follow) return { follower: localAccountOf(ctx, object.actorId), targetUri: object.objectId };
  // Only the Follow's id was sent: ours are `<actor>#follows/<n>`, so the actor is the id without fragment.
  if (activity.objectId) {
    const u = new URL(activity.objectId.href);
    u.hash = '';
    return { follower: localAccountOf(ctx, u), targetUri: activity.actorId };
  }
  return null;
}

async function onAccept(ctx: Ctx, accept: Accept): Promise<void> {
  // The Accept of one of our QuoteRequests (quotes-inbox.ts); else a Follow's.
  if (await onQuoteAccept(ctx, accept)) return;
  const sender = await remoteSender(ctx, accept);
  const f = await followOf(ctx, accept);
  if (!sender || !f?.follower) return;
  remoteAcceptedFollow(ctx.data, f.follower, sender);
}

async function onReject(ctx: Ctx, reject: Reject): Promise<void> {
  // The Reject of one of our QuoteRequests (quotes-inbox.ts); else a Follow's.
  if (await onQuoteReject(ctx, reject)) return;
  const sender = await remoteSender(ctx, reject);
  const f = await followOf(ctx, reject);
  if (!sender || !f?.follower) return;
  remoteRejectedFollow(ctx.data, f.follower, sender);
}

/** Undoes what the sender's own Like, Announce or Block did (anything else: nothing; Follows see onUndo). */
function applyUndo(ctx: Ctx, sender: AccountRow, object: Activity): void {
  if (object instanceof Like) {
    const status = object.objectId ? statusByUri(ctx.data, object.objectId.href) : undefined;
    if (status) unfavouriteStatus(ctx.data, sender, status.id);
  } else if (object instanceof Announce) {
    const target = object.objectId ? statusByUri(ctx.data, object.objectId.href) : undefined;
    if (object.id) deleteRemoteReblog(ctx.data, sender, object.id.href, target);
  } else if (object instanceof Block) {
    const target = localAccountOf(ctx, object.objectId);
    if (target) receiveRemoteUnblock(ctx.data, sender, target);
  }
}

async function onUndo(ctx: Ctx, undo: Undo): Promise<void> {
  const sender = await remoteSender(ctx, undo);
  if (!sender?.uri || !undo.objectId) return;
  const object = await undo.getObject(await loaderOptions(ctx)).catch(() => null);
  // Whatever is undone must have been done by the sender itself (and be an activity).
  if (object !== null && !(object instanceof Activity && object.actorId?.href === sender.uri)) return;
  const undoneId = undo.objectId.href;
  if (object instanceof Follow) {
    const target = localAccountOf(ctx, object.objectId);
    const current = target ? remoteFollowOf(ctx.data, sender, target.id) : { found: false as const };
    if (target && current.found && (current.uri === null || current.uri === undoneId)) {
      // The follow this Undo names is in place: it ends, and no tombstone is left. Misskey and its
      // forks give every follow of the same pair the same id, so a tombstone would silently refuse
      // their next follow; a delivery the relay replays again is caught by its sequence number.
      receiveRemoteUnfollow(ctx.data, sender, target.id);
      return;
    }
    // No follow, or a newer one (another id): this Undo came before its Follow, or is a stale
    // repeat. Either way it ends nothing now, and the Follow it names changes nothing later.
    tombstoneInbound(ctx.data, undoneId, sender.uri);
    return;
  }
  // A repeat of an Undo already applied (a replay once Fedify forgot the first) is not applied
  // again: undoing by (sender, target) would end a newer favourite, reblog or block.
  if (object !== null && !isTombstonedInbound(ctx.data, undoneId, sender.uri)) applyUndo(ctx, sender, object);
  // The undone id is remembered (after the undoing, so that a failure there is retried in full),
  // also when its activity has not come yet or cannot be loaded (only its id was sent): a peer's
  // retry may bring it after this Undo, and then it changes nothing.
  tombstoneInbound(ctx.data, undoneId, sender.uri);
}

/** A stored remote account for a URL, or null (used where the sender must already be known). */
export function knownRemote(ctx: Ctx, url: URL | null): AccountRow | null {
  return url ? (findRemoteAccount(ctx.data, url.href) ?? null) : null;
}

/**
 * Registers the inbox listeners (personal `/users/{identifier}/inbox` and shared `/inbox`).
 * Fedify verifies the HTTP signature and that the key's owner is the activity's actor before any
 * listener runs; each listener then goes through the same core functions as the REST API.
 */
export function registerInbox(federation: Federation<Deps>): void {
  federation
    .setInboxListeners('/users/{identifier}/inbox', '/inbox')
    .setSharedKeyDispatcher(() => ({ identifier: 'instance.actor' }))
    .on(Follow, onFollow)
    .on(Accept, onAccept)
    .on(Reject, onReject)
    .on(QuoteRequest, onQuoteRequest)
    .on(Undo, onUndo)
    .on(Create, onCreate)
    .on(Update, onUpdateWithFeatured)
    .on(Delete, onDelete)
    .on(Like, onLike)
    .on(Announce, onAnnounce)
    .on(Block, onBlock)
    .on(Flag, onFlag)
    .on(Move, onMove)
    .on(Add, onFeatured)
    .on(Remove, onFeatured)
    // GoToSocial reuses one Update id for every edit and poll tally of a status: Updates are not
    // deduplicated (applying one twice changes nothing); everything else is, per sending origin.
    // A key that could not be fetched because its server is down (or busy) is a reason to try
    // again later, not a bad signature: 503, so that a peer retries and the relay's replay is
    // deferred rather than dropped. A key that is gone (404, 410) stays a 401.
    .onUnverifiedActivity((_ctx, _activity, reason) => {
      if (reason.type !== 'keyFetchError') return undefined;
      const result = reason.result;
      const transient = 'error' in result || result.status >= 500 || result.status === 408 || result.status === 429;
      return transient
        ? new Response('The key could not be fetched now; try again later.', { status: 503, headers: { 'content-type': 'text/plain', 'retry-after': '120', [KEY_UNAVAILABLE_HEADER]: '1' } })
        : undefined;
    })
    .withIdempotency((_ctx, activity) => (activity instanceof Update || !activity.id ? null : `${activity.actorId?.origin ?? ''} ${activity.id.href}`))
    .onError((_ctx, error) => {
      console.error('federation inbox listener failed', error);
    });
}
