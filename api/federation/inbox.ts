import type { Federation, InboxContext } from '@fedify/fedify';
import { Accept, Announce, Create, Delete, Follow, Like, Note, Question, Reject, Undo, Update, isActor, type Activity, type Object as ApObject } from '@fedify/vocab';
import type { Deps } from '../core/deps.js';
import { receiveRemoteFollow, receiveRemoteUnfollow, remoteAcceptedFollow, remoteRejectedFollow } from '../core/federation/follows.js';
import { findLocalActor } from '../core/federation/local.js';
import { findRemoteAccount, upsertRemoteAccount } from '../core/federation/remote-accounts.js';
import { createRemoteReblog, createRemoteStatus, deleteRemoteReblog, deleteRemoteStatus, localStatusByUri, updateRemoteStatus } from '../core/federation/remote-statuses.js';
import { favouriteStatus, unfavouriteStatus } from '../core/interactions/favourites.js';
import type { AccountRow } from '../db/repos/accounts.js';
import { findStatusByUri } from '../db/repos/statuses.js';
import { fromApActor, fromApNote, visibilityOf } from './from-ap.js';
import { sendAccept } from './outbound.js';

type Ctx = InboxContext<Deps>;

/** The local account an actor URL names, if it is one of ours. */
export function localAccountOf(ctx: Ctx | { data: Deps; parseUri(u: URL | null): { type: string; identifier?: string } | null }, url: URL | null): AccountRow | undefined {
  const parsed = ctx.parseUri(url);
  if (parsed?.type !== 'actor' || !parsed.identifier) return undefined;
  return findLocalActor(ctx.data, parsed.identifier);
}

/** The sender of an activity as a stored remote account (fetched and upserted as needed). */
async function remoteSender(ctx: Ctx, activity: Activity): Promise<AccountRow | null> {
  if (!activity.actorId) return null;
  // Our own actors never arrive through the inbox as senders.
  if (localAccountOf(ctx, activity.actorId)) return null;
  const actor = await activity.getActor(ctx);
  if (!actor || !isActor(actor) || actor.id?.href !== activity.actorId.href) return null;
  const data = await fromApActor(actor);
  return data ? upsertRemoteAccount(ctx.data, data) : null;
}

function statusByUri(deps: Deps, uri: string) {
  return findStatusByUri(deps.db, uri) ?? localStatusByUri(deps, uri);
}

async function onFollow(ctx: Ctx, follow: Follow): Promise<void> {
  const target = localAccountOf(ctx, follow.objectId);
  if (!target || !follow.id) return;
  const follower = await remoteSender(ctx, follow);
  if (!follower) return;
  const outcome = receiveRemoteFollow(ctx.data, follower, target.id, follow.id.href);
  // An unlocked account accepts at once; a locked one answers when its owner decides.
  if (outcome.kind === 'followed') await sendAccept(ctx, target, follower, follow);
}

async function followOf(ctx: Ctx, activity: Accept | Reject | Undo): Promise<{ follower: AccountRow | undefined; targetUri: URL | null } | null> {
  const object = await activity.getObject(ctx).catch(() => null);
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
  const sender = await remoteSender(ctx, accept);
  const f = await followOf(ctx, accept);
  if (!sender || !f?.follower) return;
  remoteAcceptedFollow(ctx.data, f.follower, sender);
}

async function onReject(ctx: Ctx, reject: Reject): Promise<void> {
  const sender = await remoteSender(ctx, reject);
  const f = await followOf(ctx, reject);
  if (!sender || !f?.follower) return;
  remoteRejectedFollow(ctx.data, f.follower, sender);
}

async function onUndo(ctx: Ctx, undo: Undo): Promise<void> {
  const sender = await remoteSender(ctx, undo);
  if (!sender) return;
  const object = await undo.getObject(ctx).catch(() => null);
  if (object instanceof Follow) {
    const target = localAccountOf(ctx, object.objectId);
    if (target && object.actorId?.href === sender.uri) receiveRemoteUnfollow(ctx.data, sender, target.id);
  } else if (object instanceof Like) {
    const status = object.objectId ? statusByUri(ctx.data, object.objectId.href) : undefined;
    if (status && object.actorId?.href === sender.uri) unfavouriteStatus(ctx.data, sender, status.id);
  } else if (object instanceof Announce) {
    const target = object.objectId ? statusByUri(ctx.data, object.objectId.href) : undefined;
    if (object.id && object.actorId?.href === sender.uri) deleteRemoteReblog(ctx.data, sender, object.id.href, target);
  }
}

function isNote(o: ApObject | null): o is Note | Question {
  return o instanceof Note || o instanceof Question;
}

async function onCreate(ctx: Ctx, create: Create): Promise<void> {
  const object = await create.getObject(ctx);
  if (!isNote(object)) return;
  const author = await remoteSender(ctx, create);
  // The signer must be the author of what it creates.
  if (!author || object.attributionId?.href !== author.uri) return;
  const data = await fromApNote(object, author.followers_url);
  if (!data) return;
  createRemoteStatus(ctx.data, author, data, (uri) => localAccountOf(ctx, new URL(uri)));
}

async function onUpdate(ctx: Ctx, update: Update): Promise<void> {
  const object = await update.getObject(ctx);
  const sender = await remoteSender(ctx, update);
  if (!sender) return;
  // An Update of the actor itself was applied by remoteSender (it re-reads the actor document).
  if (isNote(object) && object.attributionId?.href === sender.uri) {
    const data = await fromApNote(object, sender.followers_url);
    if (data) updateRemoteStatus(ctx.data, sender, data);
  }
}

async function onDelete(ctx: Ctx, del: Delete): Promise<void> {
  if (!del.objectId || !del.actorId) return;
  const sender = findRemoteAccount(ctx.data, del.actorId.href);
  // A Delete from someone never seen has nothing here to delete (and the actor may be gone).
  if (!sender) return;
  deleteRemoteStatus(ctx.data, sender, del.objectId.href);
}

async function onLike(ctx: Ctx, like: Like): Promise<void> {
  if (!like.objectId) return;
  const status = statusByUri(ctx.data, like.objectId.href);
  if (!status) return;
  const sender = await remoteSender(ctx, like);
  if (sender) favouriteStatus(ctx.data, sender, status.id);
}

async function onAnnounce(ctx: Ctx, announce: Announce): Promise<void> {
  if (!announce.objectId || !announce.id) return;
  const target = statusByUri(ctx.data, announce.objectId.href);
  if (!target) return;
  const sender = await remoteSender(ctx, announce);
  if (!sender) return;
  const visibility = visibilityOf(announce.toIds, announce.ccIds, sender.followers_url);
  createRemoteReblog(ctx.data, sender, announce.id.href, target, visibility === 'direct' ? 'private' : visibility, announce.published?.epochMilliseconds ?? Date.now());
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
    .on(Undo, onUndo)
    .on(Create, onCreate)
    .on(Update, onUpdate)
    .on(Delete, onDelete)
    .on(Like, onLike)
    .on(Announce, onAnnounce)
    .onError((_ctx, error) => {
      console.error('federation inbox listener failed', error);
    });
}
