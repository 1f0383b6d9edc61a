import type { Context, Federation } from '@fedify/fedify';
import { Accept, Delete, Follow, Like, Tombstone, Undo, Update, type Recipient } from '@fedify/vocab';
import type { Deps } from '../core/deps.js';
import { federationFilter } from '../core/federation/instance-domains.js';
import { accountById, followerInboxesPage, loadNoteContext, statusById } from '../core/federation/local.js';
import type { AccountRow } from '../db/repos/accounts.js';
import { statusUri } from '../serializers/status.js';
import { createOf } from './dispatchers.js';
import { actorUri, addressing, toApAnnounce, toApStatusObject } from './to-ap.js';
import { nextTurn } from '../util/background-lane.js';
import { now } from '../util/clock.js';

/**
 * Work proportional to the number of followers (reading them, filtering them) is done this many
 * at a time, the event loop free in between, so that a post to thousands of followers does not
 * hold up REST requests.
 */
const CHUNK = 500;

/**
 * Inboxes per call to Fedify's sendActivity. Each call signs the activity and enqueues one
 * delivery per inbox in one go (a message, a JSON text and a row each, in one commit): a hundred
 * keep that to a few milliseconds, where the 500 inboxes of one post took tens. Each call repeats
 * the activity's serialization and signing (several milliseconds of CPU), so batches are not made
 * smaller than that.
 */
const FANOUT_INBOXES = 100;


/** Sends (and the recipient reads before them) still running, per instance: stopping waits for them. */
const pendingSends = new WeakMap<Deps, Set<Promise<unknown>>>();

/** Registers a delivery job so that stopping the instance waits until it is in the queue. */
export function trackSend<T>(deps: Deps, job: Promise<T>): Promise<T> {
  let set = pendingSends.get(deps);
  if (!set) pendingSends.set(deps, (set = new Set()));
  const entry = set;
  entry.add(job);
  void job.then(
    () => entry.delete(job),
    () => entry.delete(job),
  );
  return job;
}

/** Waits for the delivery jobs started so far (and those they start) to reach the queue. */
export async function sendsSettled(deps: Deps): Promise<void> {
  for (let set = pendingSends.get(deps); set && set.size > 0; set = pendingSends.get(deps)) await Promise.allSettled([...set]);
}

/** A remote account as a delivery recipient (null without an inbox). */
export function recipientOf(account: AccountRow): Recipient | null {
  if (!account.uri || !account.inbox_url) return null;
  return {
    id: new URL(account.uri),
    inboxId: new URL(account.inbox_url),
    endpoints: account.shared_inbox_url ? { sharedInbox: new URL(account.shared_inbox_url) } : null,
  } as Recipient;
}

/** Parses each distinct URL once: the shared inbox of a server recurs for each of its followers. */
function urlParser(): (href: string) => URL {
  const seen = new Map<string, URL>();
  return (href) => {
    let url = seen.get(href);
    if (!url) seen.set(href, (url = new URL(href)));
    return url;
  };
}

function followerRecipient(f: { uri: string; inbox: string; shared_inbox: string | null }, url: (href: string) => URL): Recipient {
  return { id: new URL(f.uri), inboxId: new URL(f.inbox), endpoints: f.shared_inbox ? { sharedInbox: url(f.shared_inbox) } : null } as Recipient;
}

/**
 * The remote followers of a local account as delivery recipients, read a page at a time with the
 * event loop free between pages: what deliveries to all followers use. Stopping the instance waits
 * for the read (and the send that follows it).
 */
export function loadFollowerRecipients(deps: Deps, accountId: string): Promise<Recipient[]> {
  return trackSend(deps, readFollowerRecipients(deps, accountId));
}

async function readFollowerRecipients(deps: Deps, accountId: string): Promise<Recipient[]> {
  const url = urlParser();
  const list: Recipient[] = [];
  for (let after: string | null = null; ; ) {
    // Each page on a turn of its own, the first too (the caller may have just rendered the activity).
    await nextTurn();
    const rows = followerInboxesPage(deps, accountId, after, CHUNK);
    for (const f of rows) list.push(followerRecipient(f, url));
    const last = rows.at(-1);
    if (rows.length < CHUNK || !last) return list;
    after = last.account_id;
  }
}

/**
 * Splits recipients into batches of at most `size` distinct inboxes (the shared inbox when there
 * is one, as Fedify picks with preferSharedInbox), the recipients of one inbox always together so
 * that each inbox is still reached once. Skips recipients on servers we do not federate with.
 */
async function deliveryBatches(deps: Deps, recipients: readonly Recipient[], size: number): Promise<Recipient[][]> {
  // Instance domain blocks and allow-list mode: nothing goes to servers we do not federate with,
  // neither the recipient's own inbox nor the shared inbox it would be reached through. The lists
  // are read once for the delivery and each host is decided once.
  const federates = federationFilter(deps);
  const batches: Recipient[][] = [];
  const batchOf = new Map<string, Recipient[]>();
  let current: Recipient[] = [];
  let inboxes = 0;
  for (let i = 0; i < recipients.length; i += CHUNK) {
    if (i > 0) await nextTurn();
    for (const r of recipients.slice(i, i + CHUNK)) {
      const shared = r.endpoints?.sharedInbox ?? null;
      if (!r.inboxId || !federates(r.inboxId.host) || (shared && !federates(shared.host))) continue;
      const key = (shared ?? r.inboxId).href;
      const batch = batchOf.get(key);
      if (batch) {
        batch.push(r);
        continue;
      }
      if (inboxes === 0 || inboxes === size) {
        current = [];
        inboxes = 0;
        batches.push(current);
      }
      current.push(r);
      inboxes++;
      batchOf.set(key, current);
    }
  }
  return batches;
}

/**
 * Sends an activity as a local account through Fedify's durable outbox queue; the shared inbox of
 * each server is used once, and servers we do not federate with get nothing. Thousands of
 * recipients are handled in chunks and batches (see CHUNK, FANOUT_INBOXES) with the event loop
 * free in between. Fedify's own fan-out queue is skipped: it would turn the whole audience into
 * one message whose worker enqueues every delivery in a single step, and the batches here already
 * run outside the request that caused them.
 */
export function send(ctx: Context<Deps>, sender: AccountRow, recipients: Recipient[], activity: Parameters<Context<Deps>['sendActivity']>[2]): Promise<void> {
  return trackSend(
    ctx.data,
    (async () => {
      const batches = await deliveryBatches(ctx.data, recipients, FANOUT_INBOXES);
      for (const [i, batch] of batches.entries()) {
        if (i > 0) await nextTurn();
        await ctx.sendActivity({ identifier: sender.username }, batch, activity, { preferSharedInbox: true, fanout: 'skip' });
      }
    })(),
  );
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

/**
 * Recipients of a status: followers (unless direct), mentioned remote accounts, and the remote
 * author of the status it answers (`inReplyToAccountId`) when it is public or unlisted.
 */
async function statusRecipients(deps: Deps, author: AccountRow, mentioned: readonly AccountRow[], visibility: string, inReplyToAccountId: string | null): Promise<Recipient[]> {
  const list = visibility === 'direct' ? [] : await loadFollowerRecipients(deps, author.id);
  for (const m of mentioned) {
    const r = recipientOf(m);
    if (r) list.push(r);
  }
  // A reply reaches the author it answers even when it does not mention them, as Mastodon
  // delivers it; only a public or unlisted one, which anyone may read (a followers-only or direct
  // reply is not addressed to them). Fedify sends once per inbox, so a mention does not double it.
  if (inReplyToAccountId !== null && (visibility === 'public' || visibility === 'unlisted')) {
    const parentAuthor = accountById(deps, inReplyToAccountId);
    const r = parentAuthor && parentAuthor.domain !== null ? recipientOf(parentAuthor) : null;
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
    // The job starts on the next turn of the event loop (the request that caused it is answered
    // first), and stopping the instance waits for it (see sendsSettled).
    const started = (async () => {
      await nextTurn();
      await job();
    })();
    void trackSend(deps, started.catch((err: unknown) => console.error(`federation: sending ${what} failed`, err)));
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
    const recipients = await statusRecipients(deps, author, context.mentions.get(status.id) ?? [], status.visibility, status.in_reply_to_account_id);
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
        // The reblogged status's remote author gets the Announce too (as Mastodon delivers it).
        const r = originalAuthor.domain !== null ? recipientOf(originalAuthor) : null;
        const announce = toApAnnounce(
          {
            id: statusUri(status, author, deps.uris),
            visibility: status.visibility,
            published: status.created_at,
            object: { uri: statusUri(original, originalAuthor, deps.uris), authorUri: actorUri(originalAuthor, deps.uris) },
          },
          author,
          deps.uris,
        );
        run('Announce', async () => {
          const recipients = await loadFollowerRecipients(deps, author.id);
          if (r) recipients.push(r);
          await send(ctx(), author, recipients, announce);
        });
        return;
      }
      // The Note is rendered in the job too: the request that posted the status does not wait for it.
      run('Create', async () => {
        const context = loadNoteContext(deps, [status]);
        const note = toApStatusObject(status, author, context, deps.uris, now());
        const recipients = await statusRecipients(deps, author, context.mentions.get(status.id) ?? [], status.visibility, status.in_reply_to_account_id);
        await send(ctx(), author, recipients, createOf(note));
      });
    }),
    deps.events.on('status.updated', ({ statusId, accountId }) => {
      const author = local(accountId);
      const status = statusById(deps, statusId);
      if (!author || !status) return;
      const context = loadNoteContext(deps, [status]);
      const note = toApStatusObject(status, author, context, deps.uris, now());
      const mentioned = context.mentions.get(status.id) ?? [];
      const update = new Update({ id: new URL(`${note.id?.href ?? ''}#updates/${status.edited_at ?? status.updated_at}`), actor: note.attributionId, object: note, tos: note.toIds, ccs: note.ccIds });
      run('Update', async () => send(ctx(), author, await statusRecipients(deps, author, mentioned, status.visibility, status.in_reply_to_account_id), update));
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
    deps.events.on('status.deleted', ({ accountId, uri, visibility, mentionedAccountIds, reblogOfId, reblogOf, inReplyToAccountId }) => {
      const author = local(accountId);
      if (!author) return;
      const mentioned = mentionedAccountIds.map((id) => accountById(deps, id)).filter((a): a is AccountRow => a !== undefined);
      const me = new URL(actorUri(author, deps.uris));
      if (reblogOfId !== null) {
        // The Announce names the reblogged status even when it was deleted with the reblog (the
        // event carries what it was): GoToSocial answers 400 to an Announce without `object`.
        // Its author is read now, while the row is there (a deleted remote account goes later).
        const originalAuthor = reblogOf ? accountById(deps, reblogOf.accountId) : undefined;
        const r = originalAuthor ? recipientOf(originalAuthor) : null;
        const object = reblogOf && originalAuthor ? { uri: reblogOf.uri, authorUri: actorUri(originalAuthor, deps.uris) } : null;
        const announce = toApAnnounce({ id: uri, visibility, published: null, object }, author, deps.uris);
        const undo = new Undo({ id: new URL(`${uri}#undo`), actor: me, object: announce, tos: announce.toIds, ccs: announce.ccIds });
        run('Undo Announce', async () => {
          const recipients = await statusRecipients(deps, author, mentioned, visibility, null);
          if (r) recipients.push(r);
          await send(ctx(), author, recipients, undo);
        });
        return;
      }
      const { to, cc } = addressing({ visibility } as Parameters<typeof addressing>[0], author, mentioned, deps.uris);
      const del = new Delete({ id: new URL(`${uri}#delete`), actor: me, object: new Tombstone({ id: new URL(uri) }), tos: to, ccs: cc });
      run('Delete', async () => send(ctx(), author, await statusRecipients(deps, author, mentioned, visibility, inReplyToAccountId), del));
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
      // Addressed, as every Undo: the liked status's author.
      const undo = new Undo({ id: new URL(`${me}#likes/${favouriteId}/undo`), actor: new URL(me), object: like, to: new URL(actorUri(author, deps.uris)) });
      run('Undo Like', () => send(ctx(), liker, [r], undo));
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
        const undo = new Undo({ id: new URL(`${follow.id?.href ?? ''}/undo`), actor: follow.actorId, object: follow, to: follow.objectId });
        run('Undo Follow', () => send(ctx(), follower, [r], undo));
      }),
    ),
  ];
  return async () => {
    offs.forEach((off) => off());
    // Updates still waiting for their window leave now (into the durable queue), before stopping.
    for (const statusId of [...pendingPolls.keys()]) track(statusId);
    await Promise.all([...inFlight]);
    // Deliveries still reading their recipients or handing batches to Fedify finish enqueueing.
    await sendsSettled(deps);
  };
}
