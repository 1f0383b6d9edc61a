// The cache publisher's event listeners: each turns a committed change into the targets whose
// public documents it changed (see publisher-targets.ts). They only mark targets (no rendering,
// at most one lookup by primary key), and ignore what concerns no local account.
import type { Deps } from '../core/deps.js';
import { findAccountById } from '../db/repos/accounts.js';
import { localAccountIds } from '../db/repos/relay-published.js';
import { findStatusById } from '../db/repos/statuses.js';
import { now } from '../util/clock.js';
import { ACCOUNT_TARGET_KINDS, isPublicOwnStatus, type DeletedStatusPayload } from './publisher-targets.js';

/** Marks a target as changed (the payload, when given, travels with it). */
export type MarkTarget = (target: string, payload?: string | null) => void;

/**
 * Subscribes to the events that change public documents and marks their targets. Returns the
 * function that unsubscribes.
 */
export function listenForPublicChanges(deps: Deps, mark: MarkTarget): () => void {
  // Local accounts, known without a query per event (remote statuses and follows arrive in floods).
  const local = new Set(localAccountIds(deps.db));
  const events = deps.events;

  /** A local status's own documents and the collections that show it. */
  const statusChanged = (statusId: string, accountId: string) => {
    mark(`status:${statusId}`);
    mark(`outbox:${accountId}`);
    mark(`featured:${accountId}`);
  };
  /** A status of a local account, if it is one the instance serves to anyone. */
  const publicOwn = (statusId: string) => {
    const row = findStatusById(deps.db, statusId);
    return row && local.has(row.account_id) && isPublicOwnStatus(row) ? row : undefined;
  };
  const offs = [
    events.on('account.created', ({ accountId }) => {
      if (findAccountById(deps.db, accountId)?.domain !== null) return;
      local.add(accountId);
      for (const kind of ACCOUNT_TARGET_KINDS) mark(`${kind}:${accountId}`);
      mark('nodeinfo');
    }),
    // A suspension (or its end) changes the collections too; documents that did not change are not sent again.
    events.on('account.updated', ({ accountId }) => {
      if (local.has(accountId)) for (const kind of ACCOUNT_TARGET_KINDS) mark(`${kind}:${accountId}`);
    }),
    events.on('account.moved', ({ accountId }) => {
      if (local.has(accountId)) mark(`account:${accountId}`);
    }),
    events.on('status.created', ({ statusId, accountId }) => {
      if (!local.has(accountId)) return;
      // NodeInfo counts every local status.
      mark('nodeinfo');
      const row = publicOwn(statusId);
      if (row) statusChanged(row.id, accountId);
    }),
    events.on('status.updated', ({ statusId, accountId }) => {
      if (local.has(accountId) && publicOwn(statusId)) statusChanged(statusId, accountId);
    }),
    events.on('status.deleted', ({ statusId, accountId, uri, visibility, reblogOfId }) => {
      if (!local.has(accountId)) return;
      mark('nodeinfo');
      // Only a status that was public or unlisted was ever published; it leaves its Tombstone.
      if (reblogOfId !== null || (visibility !== 'public' && visibility !== 'unlisted')) return;
      const payload: DeletedStatusPayload = { uri, deletedAt: now() };
      mark(`status:${statusId}`, JSON.stringify(payload));
      mark(`outbox:${accountId}`);
      mark(`featured:${accountId}`);
    }),
    events.on('pin.created', ({ accountId }) => {
      if (local.has(accountId)) mark(`featured:${accountId}`);
    }),
    events.on('pin.deleted', ({ accountId }) => {
      if (local.has(accountId)) mark(`featured:${accountId}`);
    }),
    events.on('featured_tag.created', ({ accountId }) => {
      if (local.has(accountId)) mark(`featured_tags:${accountId}`);
    }),
    events.on('featured_tag.deleted', ({ accountId }) => {
      if (local.has(accountId)) mark(`featured_tags:${accountId}`);
    }),
    ...(['follow.created', 'follow.deleted'] as const).map((name) =>
      events.on(name, ({ accountId, targetAccountId }) => {
        if (local.has(accountId)) mark(`following:${accountId}`);
        if (local.has(targetAccountId)) mark(`followers:${targetAccountId}`);
      }),
    ),
    // A poll's tallies and its end show in the Question.
    ...(['poll.voted', 'poll.tallied', 'poll.ended'] as const).map((name) =>
      events.on(name, ({ statusId }) => {
        const row = publicOwn(statusId);
        if (row) statusChanged(row.id, row.account_id);
      }),
    ),
  ];
  return () => {
    for (const off of offs) off();
  };
}
