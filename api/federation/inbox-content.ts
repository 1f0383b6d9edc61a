import { Add, Announce, Block, Create, Delete, Flag, Like, Move, Note, Question, Remove, Update, isActor, type Object as ApObject } from '@fedify/vocab';
import type { Deps } from '../core/deps.js';
import { deleteRemoteAccount } from '../core/federation/delete-actor.js';
import { blocksSenderDomain, receiveRemoteBlock, receiveRemoteFlag, receiveRemoteMove, receiveRemotePin } from '../core/federation/moderation.js';
import { createRemoteReblog, createRemoteStatus, deleteRemoteStatus, localStatusByUri, updateRemoteStatus } from '../core/federation/remote-statuses.js';
import { favouriteStatus } from '../core/interactions/favourites.js';
import { tombstoneInbound } from '../core/federation/tombstones.js';
import { pollOfLocalStatus, receiveRemoteVote } from '../core/federation/votes.js';
import { findAccountById, type AccountRow } from '../db/repos/accounts.js';
import { findStatusByUri, type StatusRow } from '../db/repos/statuses.js';
import { now } from '../util/clock.js';
import { fromApNote, visibilityOf, withoutNul } from './from-ap.js';
import { storeEmojiTags } from './emoji-tags.js';
import { receivedActivity, receivedObject } from './received.js';
import { hashtagChangeOf, receiveHashtagChange } from './inbox-hashtags.js';
import { onQuoteAuthorizationDelete } from './quotes-inbox.js';
import { knownRemote, loaderOptions, localAccountOf, mayTombstone, remoteSender, storeActor, tombstonedForSender, type Ctx } from './inbox.js';

/** A status (remote or ours) by its ActivityPub id. */
export function statusByUri(deps: Deps, uri: string): StatusRow | undefined {
  return findStatusByUri(deps.db, uri) ?? localStatusByUri(deps, uri);
}

function isNote(o: ApObject | null): o is Note | Question {
  return o instanceof Note || o instanceof Question;
}

/** Whether the local author of a status refuses the sender's whole domain. */
function refusedBy(deps: Deps, status: StatusRow, sender: AccountRow): boolean {
  const owner = findAccountById(deps.db, status.account_id);
  return owner !== undefined && owner.domain === null && blocksSenderDomain(deps, owner, sender);
}

/** The object of a Create or Update with its JSON as received (for what Fedify does not model). */
async function objectWithRaw(ctx: Ctx, activity: Create | Update): Promise<{ object: ApObject | null; raw: unknown }> {
  const object = await activity.getObject(await loaderOptions(ctx));
  return { object, raw: receivedObject(activity.id, object?.id ?? null) };
}

/**
 * Create(Note|Question): a remote status, stored only when the signer is its author, and not when
 * the author has deleted it already (its Delete came first, or this is a replay after it).
 */
export async function onCreate(ctx: Ctx, create: Create): Promise<void> {
  if (tombstonedForSender(ctx, create, create.objectId)) return;
  const { object, raw } = await objectWithRaw(ctx, create);
  if (!isNote(object)) return;
  const author = await remoteSender(ctx, create);
  if (!author || object.attributionId?.href !== author.uri) return;
  // A Note with a name answering one of our polls is a vote, not a reply.
  const parent = object.replyTargetId ? statusByUri(ctx.data, object.replyTargetId.href) : undefined;
  if (object instanceof Note && object.name !== null && pollOfLocalStatus(ctx.data, parent)) {
    if (parent) receiveRemoteVote(ctx.data, author, parent, String(object.name));
    return;
  }
  const data = await fromApNote(object, author.followers_url, raw);
  if (!data || author.domain === null) return;
  await storeEmojiTags(ctx.data, object, author.domain);
  createRemoteStatus(ctx.data, author, data, (uri) => localAccountOf(ctx, new URL(uri)));
}

/**
 * Update(Note|Question) edits a remote status; Update(actor) refreshes the profile it carries.
 * An Update of what its sender has deleted (the Delete came first) changes nothing.
 */
export async function onUpdate(ctx: Ctx, update: Update): Promise<void> {
  if (tombstonedForSender(ctx, update, update.objectId)) return;
  const { object, raw } = await objectWithRaw(ctx, update);
  const sender = await remoteSender(ctx, update);
  if (!sender) return;
  if (object && isActor(object)) {
    // Only the actor itself may update its profile; the embedded document is the new profile.
    if (object.id?.href === sender.uri) await storeActor(ctx, object, raw);
    return;
  }
  if (isNote(object) && object.attributionId?.href === sender.uri) {
    const data = await fromApNote(object, sender.followers_url, raw);
    if (data && sender.domain !== null) await storeEmojiTags(ctx.data, object, sender.domain);
    if (!data) return;
    // An edit that overtook its Create (a peer's retries, the inbox queue working several at once)
    // stores the status as edited; the Create that follows finds it there and changes nothing.
    if (!findStatusByUri(ctx.data.db, data.uri) && sender.domain !== null) createRemoteStatus(ctx.data, sender, data, (uri) => localAccountOf(ctx, new URL(uri)));
    else updateRemoteStatus(ctx.data, sender, data);
  }
}

/**
 * Delete of a status (a Tombstone or a bare URI) by its author, or of the sender's own actor. The
 * deleted id is remembered (an inbound tombstone), so that its Create or Update arriving later (a
 * peer's retry, a replay) changes nothing.
 */
export async function onDelete(ctx: Ctx, del: Delete): Promise<void> {
  if (!del.objectId || !del.actorId) return;
  const sender = knownRemote(ctx, del.actorId);
  if (!sender) {
    // A Delete from someone never seen has nothing here to delete yet (and the actor may be gone),
    // but what it deletes may still be on its way: a Note, or the actor's own activities.
    if (mayTombstone(ctx, del.actorId)) tombstoneInbound(ctx.data, del.objectId.href, del.actorId.href);
    return;
  }
  // The sender deleting its own actor (Mastodon on account deletion): the account goes entirely.
  if (del.objectId.href === del.actorId.href) {
    await deleteRemoteAccount(ctx.data, sender);
    return;
  }
  tombstoneInbound(ctx.data, del.objectId.href, del.actorId.href);
  // Not a status of the sender's: perhaps a QuoteAuthorization it issued, revoking a quote (quotes-inbox.ts).
  if (!deleteRemoteStatus(ctx.data, sender, del.objectId.href)) onQuoteAuthorizationDelete(ctx, sender, del.objectId.href);
}

/** Like of a known status: a favourite, as POST /api/v1/statuses/:id/favourite. */
export async function onLike(ctx: Ctx, like: Like): Promise<void> {
  // Undone already by its sender (the Undo came first, or this is a replay after it).
  if (!like.objectId || tombstonedForSender(ctx, like, like.id)) return;
  const status = statusByUri(ctx.data, like.objectId.href);
  if (!status) return;
  const sender = await remoteSender(ctx, like);
  if (sender && !refusedBy(ctx.data, status, sender)) favouriteStatus(ctx.data, sender, status.id);
}

/** Announce of a known status: a reblog with the Announce's addressing (unless undone or deleted already). */
export async function onAnnounce(ctx: Ctx, announce: Announce): Promise<void> {
  if (!announce.objectId || !announce.id || tombstonedForSender(ctx, announce, announce.id)) return;
  const target = statusByUri(ctx.data, announce.objectId.href);
  if (!target) return;
  const sender = await remoteSender(ctx, announce);
  if (!sender || refusedBy(ctx.data, target, sender)) return;
  const visibility = visibilityOf(announce.toIds, announce.ccIds, sender.followers_url);
  createRemoteReblog(ctx.data, sender, announce.id.href, target, visibility === 'direct' ? 'private' : visibility, announce.published?.epochMilliseconds ?? now());
}

/** Block of a local account by a remote one: follows end both ways, as for a local block (unless undone already). */
export async function onBlock(ctx: Ctx, block: Block): Promise<void> {
  const target = localAccountOf(ctx, block.objectId);
  if (!target || tombstonedForSender(ctx, block, block.id)) return;
  const sender = await remoteSender(ctx, block);
  if (sender) receiveRemoteBlock(ctx.data, sender, target);
}

/**
 * Flag: a report about local accounts (and their statuses) from a remote server, usually signed by
 * its instance actor. Objects are actor and status URIs mixed; one report per local account.
 */
export async function onFlag(ctx: Ctx, flag: Flag): Promise<void> {
  const sender = await remoteSender(ctx, flag);
  if (!sender) return;
  const uris = flag.objectIds.map((u) => u.href);
  const comment = withoutNul(flag.content === null || flag.content === undefined ? '' : String(flag.content));
  for (const u of flag.objectIds) {
    const target = localAccountOf(ctx, u);
    if (!target) continue;
    try {
      receiveRemoteFlag(ctx.data, sender, target, uris, comment);
    } catch (error) {
      console.error('federation: cannot file a remote report', error);
    }
  }
}

/** Move of the sender to another account (ours or remote) that lists it among its aliases. */
export async function onMove(ctx: Ctx, move: Move): Promise<void> {
  if (!move.objectId || !move.targetId || move.objectId.href !== move.actorId?.href) return;
  const origin = await remoteSender(ctx, move);
  if (!origin) return;
  let target = localAccountOf(ctx, move.targetId) ?? null;
  if (!target) {
    // The new account is fetched afresh: its alsoKnownAs must name the old one now.
    const options = await loaderOptions(ctx);
    const document = await options.documentLoader(move.targetId.href).catch(() => null);
    const actor = await move.getTarget(options).catch(() => null);
    target = actor && isActor(actor) ? await storeActor(ctx, actor, document?.document ?? null) : null;
  }
  if (target) receiveRemoteMove(ctx.data, origin, target);
}

/**
 * Add/Remove of one of the sender's statuses on its featured collection: a pin or an unpin. On its
 * featuredTags collection, a featured-tag change. (Fedify refuses a Hashtag object, so
 * inbox-hashtags.ts takes those first; the received JSON is still read here in case one gets
 * through. Any other object, e.g. a tag page's URL, names no tag that can be read, so the sender's
 * featured tags are synchronised again.)
 */
export async function onFeatured(ctx: Ctx, activity: Add | Remove): Promise<void> {
  if (!activity.objectId || !activity.targetId) return;
  const sender = await remoteSender(ctx, activity);
  if (!sender?.uri) return;
  if (sender.featured_tags_url === activity.targetId.href) {
    const change = hashtagChangeOf(receivedActivity(activity.id));
    receiveHashtagChange(ctx, sender, change ?? { added: activity instanceof Add, actor: sender.uri, target: activity.targetId.href, name: null });
    return;
  }
  if (sender.featured_url !== activity.targetId.href) return;
  receiveRemotePin(ctx.data, sender, activity.objectId.href, activity instanceof Add);
}
