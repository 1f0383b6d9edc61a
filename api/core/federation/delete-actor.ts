import { findAccountsByIds, type AccountRow } from '../../db/repos/accounts.js';
import {
  deleteAccountRow,
  deletePollVotesBy,
  favouritesGivenBy,
  followEdgesOf,
  insertDeletedActor,
  isDeletedActorUri,
  pollsVotedInBy,
  reblogsByOthersOf,
  statusesOfAccount,
} from '../../db/repos/deleted-actors.js';
import { kvDelete } from '../../db/repos/federation.js';
import { adjustFollowCounts } from '../../db/repos/follows.js';
import { findMentionsByStatusIds } from '../../db/repos/mentions.js';
import { pollOptionTitles, recountPoll } from '../../db/repos/polls.js';
import { bumpAccountStatuses, bumpStatusCounter, deleteStatusRow, type StatusRow } from '../../db/repos/statuses.js';
import { statusUri } from '../../serializers/status.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import type { EventMap } from '../events.js';
import { reblogTargetOf } from '../statuses/delete.js';
import { nextTurn } from '../../util/background-lane.js';

/** What a remote account's deletion removed. */
export interface DeletedAccountSummary {
  statuses: number;
  reblogsByOthers: number;
  follows: number;
  favourites: number;
}

/** Whether an actor URI belongs to a remote account that deleted itself (its activities are ignored). */
export function isDeletedActor(deps: Deps, uri: string): boolean {
  return isDeletedActorUri(deps.db, uri);
}

/**
 * A remote account deleted itself (inbound Delete of its own actor, as Mastodon sends on account
 * deletion). As Mastodon's DeleteAccountService does for a remote account, the account row goes
 * with everything hanging on it: its statuses and reblogs (and other accounts' reblogs of them),
 * their media, polls, mentions, favourites, bookmarks and notifications, its follows both ways and
 * follow requests, its favourites and poll votes on others' statuses, and the notifications it
 * caused. Counters of the accounts and statuses left behind move as for the single actions
 * (followers/following, statuses_count of rebloggers, replies/reblogs/favourites counts, poll
 * tallies). A tombstone keeps the actor URI from coming back through later activities, and the
 * cached actor document is dropped. Emits, after each commit, the events of the single deletes
 * ('status.deleted' and 'reblog.deleted', then 'favourite.deleted', 'follow.deleted' and
 * 'follow_request.deleted') so timelines, streams, lists and caches follow.
 *
 * Two transactions, statuses first: streams address a status deletion to the author's followers,
 * read from the follows when the stream work runs (on a later turn of the event loop), so the
 * follows may only go once that has happened, as Mastodon purges statuses before relationships.
 * The tombstone is written with the statuses, so nothing the actor sends in between is taken.
 * Local accounts are refused (null).
 */
export async function deleteRemoteAccount(deps: Deps, account: AccountRow): Promise<DeletedAccountSummary | null> {
  if (account.domain === null || account.uri === null) return null;
  const uri = account.uri;
  const domain = account.domain;
  return purgeAccount(deps, account, {
    withStatuses: (db, at) => insertDeletedActor(db, uri, domain, at),
    withRelations: (db) => {
      // Follows, requests, favourites, bookmarks, notifications, mentions… go with the row.
      deleteAccountRow(db, account.id);
      kvDelete(db, JSON.stringify(['_fedify', 'remoteDocument', uri]));
    },
  });
}

/** What an account purge does besides removing the account's content (see `purgeAccount`). */
export interface PurgeHooks {
  /** Runs in the transaction that removes the statuses (before them). */
  withStatuses?: (db: Deps['db'], at: number) => void;
  /** Runs last in the transaction that removes follows, favourites and votes: what becomes of the row. */
  withRelations: (db: Deps['db'], at: number) => void;
}

/**
 * Removes an account's content as `deleteRemoteAccount` describes (statuses with everything on
 * them, then follows both ways, requests, favourites and poll votes, counters moved and events
 * emitted), in the same two transactions; `hooks` decide the rest: a remote account's row goes,
 * a local account deleted by a moderator keeps its (suspended) row (core/admin).
 */
export async function purgeAccount(deps: Deps, account: AccountRow, hooks: PurgeHooks): Promise<DeletedAccountSummary> {
  const db = deps.db;
  const at = now();

  const statuses = db.transaction(() => {
    hooks.withStatuses?.(db, at);
    const own = statusesOfAccount(db, account.id);
    const ownIds = new Set(own.map((s) => s.id));
    const others = reblogsByOthersOf(db, account.id);
    const rebloggers = findAccountsByIds(db, [...new Set(others.map((r) => r.account_id))]);
    const mentions = new Map<string, string[]>();
    for (const m of findMentionsByStatusIds(db, own.map((s) => s.id))) mentions.set(m.status_id, [...(mentions.get(m.status_id) ?? []), m.account_id]);

    const deleted: EventMap['status.deleted'][] = [];
    // Other accounts' reblogs of the deleted statuses go first, as in a single status delete.
    for (const reblog of others) {
      if (reblog.visibility !== 'direct') bumpAccountStatuses(db, reblog.account_id, -1, null);
      deleteStatusRow(db, reblog.id);
      const author = rebloggers.get(reblog.account_id);
      deleted.push(payload(deps, reblog, author ? statusUri(reblog, author, deps.uris) : (reblog.uri ?? ''), []));
    }
    for (const status of own) {
      // Counters of statuses that stay: a reblogged or replied-to status of someone else.
      if (status.reblog_of_id !== null && !ownIds.has(status.reblog_of_id)) bumpStatusCounter(db, status.reblog_of_id, 'reblogs_count', -1);
      if (status.in_reply_to_id !== null && !ownIds.has(status.in_reply_to_id) && (status.visibility === 'public' || status.visibility === 'unlisted')) {
        bumpStatusCounter(db, status.in_reply_to_id, 'replies_count', -1);
      }
      const text = statusUri(status, account, deps.uris);
      // Replies from others keep the parent's URI so they still read as replies.
      db.query('UPDATE statuses SET in_reply_to_uri = @uri WHERE in_reply_to_id = @status_id AND in_reply_to_uri IS NULL').run({ uri: text, status_id: status.id });
      deleted.push(payload(deps, status, text, mentions.get(status.id) ?? []));
    }
    // Media, polls, favourites, bookmarks, pins, mentions and notifications of these statuses go
    // with their rows; replies among them are cut loose by ON DELETE SET NULL.
    for (const status of own) deleteStatusRow(db, status.id);
    bumpAccountStatuses(db, account.id, -own.length, null);
    return { deleted, reblogsByOthers: others.length, count: own.length };
  });
  for (const p of statuses.deleted) {
    if (p.reblogOfId !== null) deps.events.emit('reblog.deleted', { statusId: p.statusId, reblogOfId: p.reblogOfId, accountId: p.accountId });
    deps.events.emit('status.deleted', p);
  }

  await nextTurn();

  const rest = db.transaction(() => {
    const follows = followEdgesOf(db, 'follows', account.id);
    const requests = followEdgesOf(db, 'follow_requests', account.id);
    const favourites = favouritesGivenBy(db, account.id);
    const polls = pollsVotedInBy(db, account.id);
    for (const f of favourites) bumpStatusCounter(db, f.status_id, 'favourites_count', -1);
    for (const edge of follows) adjustFollowCounts(db, edge.account_id, edge.target_account_id, -1);
    deletePollVotesBy(db, account.id);
    for (const poll of polls) recountPoll(db, poll.id, pollOptionTitles(poll.options).length, at);
    hooks.withRelations(db, at);
    return { follows, requests, favourites };
  });
  for (const f of rest.favourites) deps.events.emit('favourite.deleted', { favouriteId: f.id, statusId: f.status_id, accountId: account.id });
  for (const e of rest.follows) deps.events.emit('follow.deleted', { followId: e.id, accountId: e.account_id, targetAccountId: e.target_account_id });
  for (const e of rest.requests) deps.events.emit('follow_request.deleted', { followRequestId: e.id, accountId: e.account_id, targetAccountId: e.target_account_id });
  return { statuses: statuses.count, reblogsByOthers: statuses.reblogsByOthers, follows: rest.follows.length, favourites: rest.favourites.length };
}

function payload(deps: Deps, status: StatusRow, uri: string, mentionedAccountIds: string[]): EventMap['status.deleted'] {
  return {
    statusId: status.id,
    accountId: status.account_id,
    uri,
    visibility: status.visibility,
    mentionedAccountIds,
    reblogOfId: status.reblog_of_id,
    reblogOf: reblogTargetOf(deps, status),
    inReplyToAccountId: status.in_reply_to_account_id,
  };
}
