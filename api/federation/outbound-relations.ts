import type { Federation } from '@fedify/fedify';
import { Accept, Add, Block, Create, Delete, Flag, Follow, Note, PUBLIC_COLLECTION, Reject, Remove, Tombstone, Undo, Update } from '@fedify/vocab';
import type { Deps } from '../core/deps.js';
import { accountById } from '../core/federation/local.js';
import { findFollow } from '../db/repos/follows.js';
import { findReportsByIds } from '../db/repos/reports.js';
import { INSTANCE_ACTOR_IDENTIFIER } from '../util/uris.js';
import { federatesWith } from '../core/federation/instance-domains.js';
import { blocksSenderDomain } from '../core/federation/moderation.js';
import { findPollsByStatusIds } from '../db/repos/status-polls.js';
import { statusUri } from '../serializers/status.js';
import { statusById } from '../core/federation/local.js';
import { now } from '../util/clock.js';
import { loadFollowerRecipients, recipientOf, send, trackSend } from './outbound.js';
import { actorUri } from './to-ap.js';

/**
 * Delivery of relationship and profile changes: Accept or Reject when a local account decides on a
 * remote follow request, Reject to remote followers removed by a user domain block, Block and
 * Undo(Block) of remote accounts, Update of the actor to the followers when a local profile changes
 * (a suspension and its end too: the actor then says `suspended`), Delete of the actor when staff
 * delete a suspended account's data,
 * Add/Remove on the featured collection for pins, votes in remote polls, and Flag for reports
 * forwarded to a remote server. Returns the unsubscribe function.
 */
export function installRelationOutbound(deps: Deps, federation: Federation<Deps>): () => void {
  const ctx = () => federation.createContext(new URL(deps.uris.base), deps);
  // Tracked: stopping the instance (or a CLI command) waits until the activity is queued.
  const run = (what: string, job: () => Promise<void>) => {
    void trackSend(
      deps,
      job().catch((err: unknown) => console.error(`federation: sending ${what} failed`, err)),
    );
  };
  const account = (id: string, isLocal: boolean) => {
    const a = accountById(deps, id);
    return a && (a.domain === null) === isLocal ? a : undefined;
  };
  /** The remote Follow being answered: its own id when we stored it, else one Mastodon matches by actor and object. */
  const remoteFollow = (followUri: string | null, followerUri: string, targetUri: string) =>
    new Follow({ id: followUri ? new URL(followUri) : null, actor: new URL(followerUri), object: new URL(targetUri) });

  const offs = [
    deps.events.on('follow_request.authorized', ({ followRequestId, accountId, targetAccountId }) => {
      const follower = account(accountId, false);
      const target = account(targetAccountId, true);
      const r = follower ? recipientOf(follower) : null;
      if (!follower?.uri || !target || !r) return;
      const me = actorUri(target, deps.uris);
      const follow = remoteFollow(findFollow(deps.db, follower.id, target.id)?.uri ?? null, follower.uri, me);
      const accept = new Accept({ id: new URL(`${me}#accepts/follows/${followRequestId}`), actor: new URL(me), object: follow, to: new URL(follower.uri) });
      run('Accept', () => send(ctx(), target, [r], accept));
    }),
    deps.events.on('follow_request.rejected', ({ followRequestId, accountId, targetAccountId }) => {
      const follower = account(accountId, false);
      const target = account(targetAccountId, true);
      const r = follower ? recipientOf(follower) : null;
      if (!follower?.uri || !target || !r) return;
      const me = actorUri(target, deps.uris);
      // The request row (and the Follow's id) is gone: the embedded Follow names actor and object.
      const reject = new Reject({ id: new URL(`${me}#rejects/follows/${followRequestId}`), actor: new URL(me), object: remoteFollow(null, follower.uri, me), to: new URL(follower.uri) });
      run('Reject', () => send(ctx(), target, [r], reject));
    }),
    ...(['follow.deleted', 'follow_request.deleted'] as const).map((name) =>
      deps.events.on(name, (payload) => {
        // A local account blocked a remote follower's (or requester's) whole domain, or a
        // moderator suspended the follower (core/admin): the follow ended here, and its server
        // learns it through Reject(Follow), as Mastodon does. (The row, and the Follow's id, are
        // gone: actor and object name it.)
        const follower = account(payload.accountId, false);
        const target = account(payload.targetAccountId, true);
        const r = follower ? recipientOf(follower) : null;
        if (!follower?.uri || !target || !r || (follower.suspended_at === null && !blocksSenderDomain(deps, target, follower))) return;
        const me = actorUri(target, deps.uris);
        const id = 'followId' in payload ? payload.followId : payload.followRequestId;
        const reject = new Reject({ id: new URL(`${me}#rejects/follows/${id}`), actor: new URL(me), object: remoteFollow(null, follower.uri, me), to: new URL(follower.uri) });
        run('Reject', () => send(ctx(), target, [r], reject));
      }),
    ),
    deps.events.on('block.created', ({ blockId, accountId, targetAccountId }) => {
      const blocker = account(accountId, true);
      const target = account(targetAccountId, false);
      const r = target ? recipientOf(target) : null;
      if (!blocker || !target?.uri || !r) return;
      const me = actorUri(blocker, deps.uris);
      run('Block', () => send(ctx(), blocker, [r], new Block({ id: new URL(`${me}#blocks/${blockId}`), actor: new URL(me), object: new URL(target.uri ?? ''), to: new URL(target.uri ?? '') })));
    }),
    deps.events.on('block.deleted', ({ blockId, accountId, targetAccountId }) => {
      const blocker = account(accountId, true);
      const target = account(targetAccountId, false);
      const r = target ? recipientOf(target) : null;
      if (!blocker || !target?.uri || !r) return;
      const me = actorUri(blocker, deps.uris);
      const block = new Block({ id: new URL(`${me}#blocks/${blockId}`), actor: new URL(me), object: new URL(target.uri) });
      run('Undo Block', () => send(ctx(), blocker, [r], new Undo({ id: new URL(`${me}#blocks/${blockId}/undo`), actor: new URL(me), object: block, to: new URL(target.uri ?? '') })));
    }),
    ...(['pin.created', 'pin.deleted'] as const).map((name) =>
      deps.events.on(name, ({ statusId, accountId }) => {
        // Pins: Add/Remove of the status on the featured collection, to the followers (as Mastodon).
        const me = account(accountId, true);
        const status = statusById(deps, statusId);
        if (!me || !status || status.account_id !== me.id) return;
        const actor = new URL(actorUri(me, deps.uris));
        const values = {
          id: new URL(`${actor.href}#${name === 'pin.created' ? 'pins' : 'unpins'}/${statusId}/${now()}`),
          actor,
          object: new URL(statusUri(status, me, deps.uris)),
          target: new URL(deps.uris.featuredUri(me.username)),
          to: PUBLIC_COLLECTION,
        };
        // Followers are read a page at a time (see loadFollowerRecipients); none, nothing is sent.
        run(name === 'pin.created' ? 'Add' : 'Remove', async () => send(ctx(), me, await loadFollowerRecipients(deps, me.id), name === 'pin.created' ? new Add(values) : new Remove(values)));
      }),
    ),
    deps.events.on('report.created', ({ reportId, targetAccountId }) => {
      // A report forwarded to a remote account's server: a Flag from the instance actor (as
      // Mastodon, so the reporter stays anonymous) naming the account and the reported statuses.
      const report = findReportsByIds(deps.db, [reportId]).get(reportId);
      const target = account(targetAccountId, false);
      const r = target ? recipientOf(target) : null;
      if (!report || report.forwarded !== 1 || !target?.uri || !r?.inboxId || !federatesWith(deps, r.inboxId.host)) return;
      const statusUris = (JSON.parse(report.status_ids) as string[]).flatMap((id) => {
        const s = statusById(deps, id);
        return s ? [new URL(statusUri(s, target, deps.uris))] : [];
      });
      const flag = new Flag({
        id: new URL(`${deps.uris.instanceActorUri()}#reports/${reportId}`),
        actor: new URL(deps.uris.instanceActorUri()),
        objects: [new URL(target.uri), ...statusUris],
        content: report.comment,
      });
      run('Flag', () => ctx().sendActivity({ identifier: INSTANCE_ACTOR_IDENTIFIER }, [r], flag, { preferSharedInbox: true }));
    }),
    deps.events.on('poll.voted', ({ pollId, statusId, accountId, choices }) => {
      // A vote in a remote poll goes to its author: one Note per choice, with the option as
      // `name`, answering the Question, and no `content` (GoToSocial counts only such votes).
      const voter = account(accountId, true);
      const status = statusById(deps, statusId);
      const author = status ? account(status.account_id, false) : undefined;
      const r = author ? recipientOf(author) : null;
      const poll = findPollsByStatusIds(deps.db, [statusId]).get(statusId);
      if (!voter || !status || !author?.uri || !r || !poll) return;
      const titles = JSON.parse(poll.options) as string[];
      const me = actorUri(voter, deps.uris);
      const question = new URL(statusUri(status, author, deps.uris));
      for (const choice of choices) {
        const id = `${me}#votes/${pollId}/${choice}`;
        const note = new Note({ id: new URL(id), attribution: new URL(me), name: titles[choice] ?? '', replyTarget: question, to: new URL(author.uri) });
        run('vote', () => send(ctx(), voter, [r], new Create({ id: new URL(`${id}/activity`), actor: new URL(me), object: note, to: new URL(author.uri ?? '') })));
      }
    }),
    deps.events.on('account.updated', ({ accountId }) => {
      const me = account(accountId, true);
      if (!me) return;
      run('Update actor', async () => {
        const recipients = await loadFollowerRecipients(deps, me.id);
        if (recipients.length === 0) return;
        // The actor document exactly as it is served, through the actor dispatcher.
        const c = federation.createContext(new Request(actorUri(me, deps.uris)), deps);
        const actor = await c.getActor(me.username);
        // An account whose data was deleted is a Tombstone: its Delete went already.
        if (!actor?.id || actor instanceof Tombstone) return;
        const update = new Update({ id: new URL(`${actor.id.href}#updates/${now()}`), actor: actor.id, object: actor, to: new URL('https://www.w3.org/ns/activitystreams#Public') });
        await send(ctx(), me, recipients, update);
      });
    }),
    deps.events.on('account.data_deleted', ({ accountId, remoteAccountIds }) => {
      const me = account(accountId, true);
      if (!me) return;
      const recipients = remoteAccountIds.flatMap((id) => {
        const remote = account(id, false);
        const r = remote ? recipientOf(remote) : null;
        return r ? [r] : [];
      });
      if (recipients.length === 0) return;
      // As Mastodon's account deletion: Delete naming the actor itself, to everyone who knew it.
      const uri = new URL(actorUri(me, deps.uris));
      run('Delete actor', () => send(ctx(), me, recipients, new Delete({ id: new URL(`${uri.href}#delete`), actor: uri, object: uri, to: PUBLIC_COLLECTION })));
    }),
  ];
  return () => offs.forEach((off) => off());
}
