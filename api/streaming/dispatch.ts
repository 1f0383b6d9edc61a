import { AsyncLocalStorage } from 'node:async_hooks';
import type { Deps } from '../core/deps.js';
import type { EventMap } from '../core/events.js';
import { filterResultsForIds } from '../core/filters/active.js';
import { presentNotifications } from '../core/notifications/present.js';
import { presentConversations } from '../core/timelines/conversations.js';
import { normalizeHashtag } from '../core/timelines/listing.js';
import { findAccountConversation, mentionedAccountIds } from '../db/repos/account-conversations.js';
import { findAccountById } from '../db/repos/accounts.js';
import { findNotification } from '../db/repos/notifications.js';
import { followersOfAmong, homeFeedHoldersAmong, listsContainingAuthor, listsWithMember } from '../db/repos/streaming.js';
import { findUserById } from '../db/repos/users.js';
import type { PublicChannel } from './channels.js';
import type { Hub, Subscription } from './hub.js';
import { Outgoing, Payload } from './message.js';
import { hiddenIn, StatusRender } from './render.js';
import { excludedViewers, isBroadcastable, isReplyToOther, listAdmits } from './rules.js';

/**
 * Feeds the streams from core events. Work is queued and done on the next turn of the event loop
 * (after the HTTP answer that caused it is written), in order, and only while someone streams.
 * What each stream gets follows Mastodon's fan-out:
 * - `user`: the statuses that entered the user's home feed (the materialised feed decides; the
 *   fan-out applies follows, language choices, reply rules), their edits and deletions,
 *   notifications (with a notifications scope) and `filters_changed`;
 * - `user:notification`: notifications;
 * - `list`: statuses of the list's members as the list timeline admits them;
 * - public and hashtag streams: public, original statuses of listed accounts (the public ones
 *   without replies to others, the local/remote/media variants by origin and media);
 * - `direct`: `conversation` for each participant's updated thread, and deletions.
 * Every status stream leaves out what the subscriber's blocks, mutes and domain blocks exclude,
 * and applies their v2 filters: a `hide` filter of the stream's context drops the status, others
 * fill `filtered`.
 */
export function installDispatch(deps: Deps, hub: Hub): () => void {
  // Events are rendered outside the request that caused them (whose URL base, for a local-only
  // instance, is its client's): in the context of installation, with the URLs the hub expects.
  const outside = AsyncLocalStorage.snapshot();
  const queue: (() => void)[] = [];
  let scheduled = false;
  const drain = () => {
    scheduled = false;
    for (const task of queue.splice(0)) {
      // The instance may have closed meanwhile: nothing is left to stream.
      if (!deps.db.raw.open) return;
      try {
        task();
      } catch (err) {
        console.error('streaming: an event could not be delivered', err);
      }
    }
  };
  const later = (task: () => void) => {
    if (!hub.active) return;
    queue.push(task);
    if (!scheduled) {
      scheduled = true;
      setImmediate(() => outside(drain));
    }
  };
  const { events } = deps;
  const offs = [
    events.on('status.created', ({ statusId }) => later(() => statusEvent(deps, hub, statusId, 'update'))),
    events.on('status.updated', ({ statusId }) => later(() => statusEvent(deps, hub, statusId, 'status.update'))),
    events.on('status.deleted', (payload) => later(() => deleteEvent(deps, hub, payload))),
    events.on('notification.created', (payload) => later(() => notificationEvent(deps, hub, payload))),
    events.on('notifications.merged', ({ accountId }) => later(() => sendAll(hub, notificationSubscribers(hub, accountId), new Outgoing('notifications_merged', Payload.of('1'))))),
    events.on('filters.changed', ({ accountId }) => later(() => sendAll(hub, hub.user.get(accountId), new Outgoing('filters_changed', null)))),
    // A revoked token ends its connections at once, as Mastodon's streaming server does.
    events.on('token.revoked', ({ tokenId }) => hub.endToken(tokenId)),
    events.on('account.updated', ({ accountId }) => later(() => endIfLockedOut(deps, hub, accountId))),
  ];
  return () => offs.forEach((off) => off());
}

function sendAll(hub: Hub, subs: Iterable<Subscription> | undefined, message: Outgoing): void {
  if (!subs) return;
  for (const sub of [...subs]) hub.send(sub, message);
}

/** Ends the streams of an account that was suspended or whose user was disabled. */
function endIfLockedOut(deps: Deps, hub: Hub, accountId: string): void {
  const sessions = hub.sessionsOf(accountId);
  if (sessions.length === 0) return;
  const account = findAccountById(deps.db, accountId);
  const userIds = new Set(sessions.map((s) => s.auth.userId));
  const usable = account !== undefined && account.suspended_at === null && [...userIds].every((id) => findUserById(deps.db, id)?.disabled === 0);
  if (!usable) hub.endAccount(accountId);
}

/** `update` or `status.update` of one status to every stream it belongs to. */
function statusEvent(deps: Deps, hub: Hub, statusId: string, event: 'update' | 'status.update'): void {
  const render = StatusRender.load(deps, statusId);
  if (!render) return;
  const status = render.status;
  const db = deps.db;

  // Who may get it: home feed holders, list owners, public and hashtag subscribers. The home
  // fan-out (core/timelines) writes the feed synchronously in its own status.created listener,
  // so by this later turn the feed rows say exactly who got the status in their home.
  const homeViewers = hub.user.size > 0 ? homeFeedHoldersAmong(db, statusId, hub.user.keys()) : [];
  const lists =
    hub.lists.size > 0 && status.visibility !== 'direct'
      ? listsContainingAuthor(db, hub.lists.keys(), status.account_id, status.reblog_of_id === null ? status.in_reply_to_account_id : null).filter((l) =>
          listAdmits(deps, l, status),
        )
      : [];
  const publicSubs = isBroadcastable(render.view) ? publicSubscriptions(hub, render) : [];
  if (homeViewers.length === 0 && lists.length === 0 && publicSubs.length === 0 && !(event === 'update' && status.visibility === 'direct')) return;
  const personalViewers = [...new Set([...homeViewers, ...lists.map((l) => l.account_id)])];
  const excludedPersonal = excludedViewers(deps, personalViewers, statusId, 'feed');
  const excludedPublic = excludedViewers(deps, publicSubs.map((s) => s.session.auth.accountId), statusId, 'timeline');

  // Public and hashtag streams first: the anonymous rendering is ready, shared by every viewer
  // without filters, and goes out while the personal payloads below are still to be rendered.
  const shared = new Map<Payload, Outgoing>();
  for (const sub of publicSubs) {
    const viewerId = sub.session.auth.accountId;
    if (excludedPublic.has(viewerId)) continue;
    const payload = render.forPublicViewer(viewerId);
    if (!payload) continue;
    let message = shared.get(payload);
    if (!message) {
      message = new Outgoing(event, payload);
      shared.set(payload, message);
    }
    hub.send(sub, message);
  }

  // Home and lists: rendered with each viewer's flags; a hide filter of `home` drops it.
  const payloads = render.forViewers(personalViewers.filter((v) => !excludedPersonal.has(v)), 'home');
  const messages = new Map<string, Outgoing>();
  const messageFor = (viewerId: string): Outgoing | null => {
    let message = messages.get(viewerId);
    if (!message) {
      const payload = payloads.get(viewerId);
      if (!payload) return null;
      message = new Outgoing(event, payload);
      messages.set(viewerId, message);
    }
    return message;
  };
  for (const viewerId of homeViewers) {
    const message = messageFor(viewerId);
    if (message) sendAll(hub, hub.user.get(viewerId), message);
  }
  for (const list of lists) {
    const message = messageFor(list.account_id);
    if (message) sendAll(hub, hub.lists.get(list.id), message);
  }

  if (event === 'update') conversationEvent(deps, hub, render);
}

/** The public and hashtag subscriptions a broadcastable status goes to. */
function publicSubscriptions(hub: Hub, render: StatusRender): Subscription[] {
  const status = render.status;
  const out: Subscription[] = [];
  const add = (channel: PublicChannel) => out.push(...(hub.publics.get(channel) ?? []));
  // The public timelines leave out replies to others; hashtag timelines keep them.
  if (!isReplyToOther(status)) {
    const origin = status.local ? 'local' : 'remote';
    add('public');
    add(`public:${origin}`);
    if (render.view.media.length > 0) {
      add('public:media');
      add(`public:${origin}:media`);
    }
  }
  const tags = new Set(render.view.tags.map((t) => normalizeHashtag(t.name)));
  for (const tag of tags) {
    for (const sub of hub.hashtags.get(tag) ?? []) {
      if (sub.target.channel === 'hashtag:local' && !status.local) continue;
      out.push(sub);
    }
  }
  return out;
}

/** `conversation` to the `direct` streams of a new direct status's local participants. */
function conversationEvent(deps: Deps, hub: Hub, render: StatusRender): void {
  const status = render.status;
  if (status.visibility !== 'direct' || status.reblog_of_id !== null || status.conversation_id === null || hub.direct.size === 0) return;
  const participants = new Set([status.account_id, ...mentionedAccountIds(deps.db, status.id)]);
  const streaming = [...participants].filter((p) => hub.direct.get(p) !== undefined);
  if (streaming.length === 0) return;
  const excluded = excludedViewers(deps, streaming, status.id, 'feed');
  for (const accountId of streaming) {
    if (excluded.has(accountId)) continue;
    const row = findAccountConversation(deps.db, accountId, status.conversation_id);
    if (!row) continue;
    const [conversation] = presentConversations(deps, [row], accountId);
    if (!conversation) continue;
    sendAll(hub, hub.direct.get(accountId), new Outgoing('conversation', Payload.of(JSON.stringify(conversation))));
  }
}

/**
 * `delete` to the streams that may have shown the status. The status is gone (its home feed rows
 * with it), so the recipients are worked out from what remains: the author, followers and
 * mentioned accounts on `user`; lists with the author; the public and hashtag streams for a public
 * original; the participants' `direct` streams. A delete of an id a client never saw is ignored.
 */
function deleteEvent(deps: Deps, hub: Hub, p: EventMap['status.deleted']): void {
  const db = deps.db;
  const message = new Outgoing('delete', Payload.of(p.statusId));
  if (hub.user.size > 0) {
    const candidates = hub.user.keys();
    const recipients = new Set<string>([...followersOfAmong(db, p.accountId, candidates), p.accountId, ...p.mentionedAccountIds]);
    for (const accountId of recipients) sendAll(hub, hub.user.get(accountId), message);
  }
  if (p.visibility !== 'direct' && hub.lists.size > 0) {
    for (const listId of listsWithMember(db, hub.lists.keys(), p.accountId)) sendAll(hub, hub.lists.get(listId), message);
  }
  if (p.visibility === 'public' && p.reblogOfId === null) {
    const local = findAccountById(db, p.accountId)?.domain === null;
    for (const [channel, subs] of hub.publics) {
      if ((local && channel.startsWith('public:remote')) || (!local && channel.startsWith('public:local'))) continue;
      sendAll(hub, subs, message);
    }
    // Its hashtags went with it; every hashtag stream hears of the deletion.
    for (const tag of hub.hashtags.keys()) {
      for (const sub of [...(hub.hashtags.get(tag) ?? [])]) if (local || sub.target.channel !== 'hashtag:local') hub.send(sub, message);
    }
  }
  if (p.visibility === 'direct' && p.reblogOfId === null) {
    for (const accountId of new Set([p.accountId, ...p.mentionedAccountIds])) sendAll(hub, hub.direct.get(accountId), message);
  }
}

/** The streams that get an account's notifications: `user:notification`, and `user` with a notifications scope. */
function notificationSubscribers(hub: Hub, accountId: string): Subscription[] {
  return [...(hub.notifications.get(accountId) ?? []), ...[...(hub.user.get(accountId) ?? [])].filter((s) => s.session.userGetsNotifications)];
}

/**
 * `notification` to the recipient's `user:notification` streams and to `user` streams whose
 * token may read notifications. A notification about a status that a `hide` filter of the
 * `notifications` context matches is not sent; otherwise the status carries `filtered`.
 */
function notificationEvent(deps: Deps, hub: Hub, p: EventMap['notification.created']): void {
  const subs = notificationSubscribers(hub, p.accountId);
  if (subs.length === 0) return;
  const row = findNotification(deps.db, p.accountId, p.notificationId);
  if (!row) return;
  const [notification] = presentNotifications(deps, p.accountId, [row]);
  if (!notification) return;
  let body: object = notification;
  if (notification.status) {
    const results = filterResultsForIds(deps, p.accountId, null, [notification.status.id]).get(notification.status.id) ?? [];
    if (hiddenIn(results, 'notifications')) return;
    body = { ...notification, status: { ...notification.status, filtered: results } };
  }
  const message = new Outgoing('notification', Payload.of(JSON.stringify(body)));
  for (const sub of subs) hub.send(sub, message);
}
