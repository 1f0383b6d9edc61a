import type { Context, Federation } from '@fedify/fedify';
import { Accept, Announce, Create, Delete, Follow, Like, Tombstone, Undo, Update, type Recipient } from '@fedify/vocab';
import type { Deps } from '../core/deps.js';
import { federatesWith } from '../core/federation/instance-domains.js';
import { accountById, followerInboxes, loadNoteContext, statusById } from '../core/federation/local.js';
import type { AccountRow } from '../db/repos/accounts.js';
import { statusUri } from '../serializers/status.js';
import { PUBLIC_COLLECTION } from '@fedify/vocab';
import { createOf } from './dispatchers.js';
import { actorUri, addressing, toApNote, toApStatusObject } from './to-ap.js';
import { now } from '../util/clock.js';

/** A remote account as a delivery recipient (null without an inbox). */
export function recipientOf(account: AccountRow): Recipient | null {
  if (!account.uri || !account.inbox_url) return null;
  return {
    id: new URL(account.uri),
    inboxId: new URL(account.inbox_url),
    endpoints: account.shared_inbox_url ? { sharedInbox: new URL(account.shared_inbox_url) } : null,
  } as Recipient;
}

/** The remote followers of a local account as delivery recipients. */
export function followerRecipients(deps: Deps, accountId: string): Recipient[] {
  return followerInboxes(deps, accountId).map(
    (f) => ({ id: new URL(f.uri), inboxId: new URL(f.inbox), endpoints: f.shared_inbox ? { sharedInbox: new URL(f.shared_inbox) } : null }) as Recipient,
  );
}

/** Sends an activity as a local account; the shared inbox of each server is used once. */
export async function send(ctx: Context<Deps>, sender: AccountRow, recipients: Recipient[], activity: Parameters<Context<Deps>['sendActivity']>[2]): Promise<void> {
  // Instance domain blocks and allow-list mode: nothing goes to servers we do not federate with.
  const allowed = recipients.filter((r) => r.inboxId && federatesWith(ctx.data, r.inboxId.host));
  if (allowed.length === 0) return;
  await ctx.sendActivity({ identifier: sender.username }, allowed, activity, { preferSharedInbox: true });
}

/** Answers a remote Follow with Accept (embedding the Follow, as Mastodon does). */
export async function sendAccept(ctx: Context<Deps>, target: AccountRow, follower: AccountRow, follow: Follow): Promise<void> {
  const recipient = recipientOf(follower);
  if (!recipient) return;
  const me = actorUri(target, ctx.data.uris);
  await send(ctx, target, [recipient], new Accept({ id: new URL(`${me}#accepts/follows/${follower.id}`), actor: new URL(me), object: follow, to: new URL(follower.uri ?? '') }));
}

function followActivity(deps: Deps, follower: AccountRow, target: AccountRow, id: string): Follow {
  const me = actorUri(follower, deps.uris);
  return new Follow({ id: new URL(`${me}#follows/${id}`), actor: new URL(me), object: new URL(actorUri(target, deps.uris)) });
}

/** Recipients of a status: followers (unless direct) and mentioned remote accounts. */
function statusRecipients(deps: Deps, author: AccountRow, mentioned: readonly AccountRow[], visibility: string): Recipient[] {
  const list = visibility === 'direct' ? [] : followerRecipients(deps, author.id);
  for (const m of mentioned) {
    const r = recipientOf(m);
    if (r) list.push(r);
  }
  return list;
}

/** How long votes in a local poll are collected before one Update(Question) carries the tallies. */
export const POLL_UPDATE_DEBOUNCE_MS = 2_000;

/** Options of outbound delivery (tests shorten the poll window). */
export interface OutboundOptions {
  /** The poll-tally debounce window in ms (default POLL_UPDATE_DEBOUNCE_MS). */
  pollUpdateDelayMs?: number;
}

/**
 * Subscribes delivery to core events: what local accounts do reaches the right remote inboxes
 * through Fedify's durable outbox queue. Returns the stop function: it unsubscribes and sends the
 * poll Updates still waiting for their window.
 */
export function installOutbound(deps: Deps, federation: Federation<Deps>, options: OutboundOptions = {}): () => Promise<void> {
  const ctx = () => federation.createContext(new URL(deps.uris.base), deps);
  const run = (what: string, job: () => Promise<void>) => {
    job().catch((err: unknown) => console.error(`federation: sending ${what} failed`, err));
  };
  const local = (id: string) => {
    const a = accountById(deps, id);
    return a && a.domain === null ? a : undefined;
  };
  const remote = (id: string) => {
    const a = accountById(deps, id);
    return a && a.domain !== null ? a : undefined;
  };
  // Poll tallies, debounced per status: votes arriving within the window share one Update,
  // sent to the followers (and mentioned accounts) plus every remote voter collected meanwhile.
  const pollDelay = options.pollUpdateDelayMs ?? POLL_UPDATE_DEBOUNCE_MS;
  const pendingPolls = new Map<string, { voters: Set<string>; timer: NodeJS.Timeout }>();
  const inFlight = new Set<Promise<void>>();
  const sendPollUpdate = async (statusId: string): Promise<void> => {
    const entry = pendingPolls.get(statusId);
    if (!entry) return;
    pendingPolls.delete(statusId);
    clearTimeout(entry.timer);
    // Read afresh: the Update carries the tallies as they are when it leaves.
    const status = statusById(deps, statusId);
    const author = status ? local(status.account_id) : undefined;
    if (!author || !status) return;
    const context = loadNoteContext(deps, [status]);
    const question = toApStatusObject(status, author, context, deps.uris, now());
    const recipients = statusRecipients(deps, author, context.mentions.get(status.id) ?? [], status.visibility);
    for (const voterId of entry.voters) {
      const voter = remote(voterId);
      const r = voter ? recipientOf(voter) : null;
      // Fedify sends once per inbox, so a voter who also follows is not reached twice.
      if (r) recipients.push(r);
    }
    const update = new Update({ id: new URL(`${question.id?.href ?? ''}#tallies/${now()}`), actor: question.attributionId, object: question, tos: question.toIds, ccs: question.ccIds });
    await send(ctx(), author, recipients, update);
  };
  const track = (statusId: string) => {
    const p = sendPollUpdate(statusId).catch((err: unknown) => console.error('federation: sending Update Question failed', err));
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  const schedulePollUpdate = (statusId: string, voterId: string) => {
    const entry = pendingPolls.get(statusId);
    if (entry) {
      // The window is fixed from the first vote (not extended by each one), so a poll under a
      // steady stream of votes still sends its tallies at least every window.
      entry.voters.add(voterId);
      return;
    }
    pendingPolls.set(statusId, { voters: new Set([voterId]), timer: setTimeout(() => track(statusId), pollDelay) });
  };

  const offs = [
    deps.events.on('status.created', ({ statusId, accountId }) => {
      const author = local(accountId);
      const status = statusById(deps, statusId);
      if (!author || !status) return;
      if (status.reblog_of_id !== null) {
        const original = statusById(deps, status.reblog_of_id);
        const originalAuthor = original ? accountById(deps, original.account_id) : undefined;
        if (!original || !originalAuthor) return;
        const recipients = followerRecipients(deps, author.id);
        const r = originalAuthor.domain !== null ? recipientOf(originalAuthor) : null;
        if (r) recipients.push(r);
        const me = actorUri(author, deps.uris);
        const announce = new Announce({
          id: new URL(statusUri(status, author, deps.uris)),
          actor: new URL(me),
          object: new URL(statusUri(original, originalAuthor, deps.uris)),
          tos: status.visibility === 'public' ? [PUBLIC_COLLECTION] : [new URL(deps.uris.followersUri(author.username))],
          ccs: [new URL(actorUri(originalAuthor, deps.uris)), ...(status.visibility === 'unlisted' ? [PUBLIC_COLLECTION] : [])],
        });
        run('Announce', () => send(ctx(), author, recipients, announce));
        return;
      }
      const context = loadNoteContext(deps, [status]);
      const note = toApStatusObject(status, author, context, deps.uris, now());
      const recipients = statusRecipients(deps, author, context.mentions.get(status.id) ?? [], status.visibility);
      run('Create', () => send(ctx(), author, recipients, createOf(note)));
    }),
    deps.events.on('status.updated', ({ statusId, accountId }) => {
      const author = local(accountId);
      const status = statusById(deps, statusId);
      if (!author || !status) return;
      const context = loadNoteContext(deps, [status]);
      const note = toApStatusObject(status, author, context, deps.uris, now());
      const recipients = statusRecipients(deps, author, context.mentions.get(status.id) ?? [], status.visibility);
      const update = new Update({ id: new URL(`${note.id?.href ?? ''}#updates/${status.edited_at ?? status.updated_at}`), actor: note.attributionId, object: note, tos: note.toIds, ccs: note.ccIds });
      run('Update', () => send(ctx(), author, recipients, update));
    }),
    ...(['poll.tallied', 'poll.voted'] as const).map((name) =>
      deps.events.on(name, (payload) => {
        // New counts after a vote in a local poll go out as one Update(Question) per status after
        // a short quiet window (see schedulePollUpdate). A vote in a remote poll is sent as a Note
        // elsewhere (outbound-relations.ts).
        const status = statusById(deps, payload.statusId);
        if (!status || !local(status.account_id)) return;
        schedulePollUpdate(status.id, 'voterAccountId' in payload ? payload.voterAccountId : payload.accountId);
      }),
    ),
    deps.events.on('status.deleted', ({ accountId, uri, visibility, mentionedAccountIds, reblogOfId }) => {
      const author = local(accountId);
      if (!author) return;
      const mentioned = mentionedAccountIds.map((id) => accountById(deps, id)).filter((a): a is AccountRow => a !== undefined);
      const recipients = statusRecipients(deps, author, mentioned, visibility);
      const me = new URL(actorUri(author, deps.uris));
      if (reblogOfId !== null) {
        const original = statusById(deps, reblogOfId);
        const originalAuthor = original ? accountById(deps, original.account_id) : undefined;
        const r = originalAuthor ? recipientOf(originalAuthor) : null;
        if (r) recipients.push(r);
        const undo = new Undo({ id: new URL(`${uri}#undo`), actor: me, object: new Announce({ id: new URL(uri), actor: me, object: original && originalAuthor ? new URL(statusUri(original, originalAuthor, deps.uris)) : null }) });
        run('Undo Announce', () => send(ctx(), author, recipients, undo));
        return;
      }
      const { to, cc } = addressing({ visibility } as Parameters<typeof addressing>[0], author, mentioned, deps.uris);
      const del = new Delete({ id: new URL(`${uri}#delete`), actor: me, object: new Tombstone({ id: new URL(uri) }), tos: to, ccs: cc });
      run('Delete', () => send(ctx(), author, recipients, del));
    }),
    deps.events.on('favourite.created', ({ favouriteId, statusId, accountId }) => {
      const liker = local(accountId);
      const status = statusById(deps, statusId);
      const author = status ? remote(status.account_id) : undefined;
      const r = author ? recipientOf(author) : null;
      if (!liker || !status || !author || !r) return;
      const me = actorUri(liker, deps.uris);
      run('Like', () => send(ctx(), liker, [r], new Like({ id: new URL(`${me}#likes/${favouriteId}`), actor: new URL(me), object: new URL(statusUri(status, author, deps.uris)) })));
    }),
    deps.events.on('favourite.deleted', ({ favouriteId, statusId, accountId }) => {
      const liker = local(accountId);
      const status = statusById(deps, statusId);
      const author = status ? remote(status.account_id) : undefined;
      const r = author ? recipientOf(author) : null;
      if (!liker || !status || !author || !r) return;
      const me = actorUri(liker, deps.uris);
      const like = new Like({ id: new URL(`${me}#likes/${favouriteId}`), actor: new URL(me), object: new URL(statusUri(status, author, deps.uris)) });
      run('Undo Like', () => send(ctx(), liker, [r], new Undo({ id: new URL(`${me}#likes/${favouriteId}/undo`), actor: new URL(me), object: like })));
    }),
    deps.events.on('follow_request.created', ({ followRequestId, accountId, targetAccountId }) => {
      const follower = local(accountId);
      const target = remote(targetAccountId);
      const r = target ? recipientOf(target) : null;
      if (!follower || !target || !r) return;
      run('Follow', () => send(ctx(), follower, [r], followActivity(deps, follower, target, followRequestId)));
    }),
    ...(['follow.deleted', 'follow_request.deleted'] as const).map((name) =>
      deps.events.on(name, (payload) => {
        const id = 'followId' in payload ? payload.followId : payload.followRequestId;
        const follower = local(payload.accountId);
        const target = remote(payload.targetAccountId);
        const r = target ? recipientOf(target) : null;
        if (!follower || !target || !r) return;
        const follow = followActivity(deps, follower, target, id);
        run('Undo Follow', () => send(ctx(), follower, [r], new Undo({ id: new URL(`${follow.id?.href ?? ''}/undo`), actor: follow.actorId, object: follow })));
      }),
    ),
  ];
  return async () => {
    offs.forEach((off) => off());
    // Updates still waiting for their window leave now (into the durable queue), before stopping.
    for (const statusId of [...pendingPolls.keys()]) track(statusId);
    await Promise.all([...inFlight]);
  };
}
