import type { PageBounds } from '../../db/paging.js';
import {
  accountConversationsPage,
  deleteAccountConversation,
  findAccountConversation,
  findOrphanedAccountConversations,
  findOwnAccountConversation,
  insertAccountConversation,
  latestDirectStatusFor,
  localUserAccounts,
  markAccountConversationRead,
  markAccountConversationUnread,
  mentionedAccountIds,
  updateAccountConversation,
  type AccountConversationRow,
} from '../../db/repos/account-conversations.js';
import { derivedTransaction } from '../../db/repos/feeds.js';
import type { StatusRow } from '../../db/repos/statuses.js';
import { visibleStatusIds } from '../../db/repos/timelines.js';
import { toMastodonAccount, type MastodonAccount } from '../../serializers/account.js';
import { toMastodonConversation, type MastodonConversation } from '../../serializers/conversation.js';
import type { MastodonStatus } from '../../serializers/status.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import { loadAccountViews } from '../accounts/views.js';
import type { Deps } from '../deps.js';
import { presentStatuses } from '../statuses/views.js';
import { statusVisibilitySql } from '../statuses/visibility.js';

/**
 * Direct-message conversations (the conversations API): one row per local participant and thread,
 * kept up to date from direct statuses as they are created and deleted.
 */

function parseIds(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Records a new direct status in the conversations of its local participants (the author and the
 * mentioned): the thread moves to the top, unread for everyone but the author, and the participant
 * lists grow with new recipients. Runs inside the caller's transaction.
 */
export function recordDirectStatus(deps: Deps, status: StatusRow): void {
  if (status.visibility !== 'direct' || status.reblog_of_id !== null || status.conversation_id === null) return;
  const db = deps.db;
  const participants = [...new Set([status.account_id, ...mentionedAccountIds(db, status.id)])];
  const at = now();
  for (const accountId of localUserAccounts(db, participants)) {
    const others = participants.filter((p) => p !== accountId);
    const unread = accountId === status.account_id ? 0 : 1;
    const row = findAccountConversation(db, accountId, status.conversation_id);
    if (!row) {
      insertAccountConversation(db, {
        id: newId(at),
        account_id: accountId,
        conversation_id: status.conversation_id,
        participant_ids: JSON.stringify(others.sort()),
        last_status_id: status.id,
        unread,
        updated_at: at,
      });
      continue;
    }
    const merged = [...new Set([...parseIds(row.participant_ids), ...others])].sort();
    // A late-arriving older status (federation) does not move the thread back in time.
    const newer = row.last_status_id === null || BigInt(status.id) > BigInt(row.last_status_id);
    updateAccountConversation(db, row.id, {
      participant_ids: JSON.stringify(merged),
      last_status_id: newer ? status.id : row.last_status_id,
      unread: newer ? unread : row.unread,
      updated_at: at,
    });
  }
}

/**
 * After a direct status is deleted, points each affected participant's conversation at its newest
 * remaining direct status, or removes the conversation when none is left.
 */
export function forgetDirectStatus(deps: Deps, participants: readonly string[]): void {
  const db = deps.db;
  const rows = findOrphanedAccountConversations(db, [...new Set(participants)]);
  if (rows.length === 0) return;
  derivedTransaction(db, () => {
    for (const row of rows) {
      const latest = latestDirectStatusFor(db, row.conversation_id, row.account_id);
      if (latest === null) deleteAccountConversation(db, row.id);
      else updateAccountConversation(db, row.id, { participant_ids: row.participant_ids, last_status_id: latest, unread: row.unread, updated_at: now() });
    }
  });
}

/** Conversation entities for a viewer's rows, in order, with accounts and last statuses loaded in batches. */
export function presentConversations(deps: Deps, rows: readonly AccountConversationRow[], viewerId: string): MastodonConversation[] {
  const participantIds = rows.map((r) => parseIds(r.participant_ids));
  const accountViews = loadAccountViews(deps, [...new Set([viewerId, ...participantIds.flat()])]);
  const accounts = new Map<string, MastodonAccount>();
  for (const [id, view] of accountViews) accounts.set(id, toMastodonAccount(view, deps.uris));
  const lastIds = rows.map((r) => r.last_status_id).filter((id): id is string => id !== null);
  const visible = visibleStatusIds(deps.db, statusVisibilitySql, viewerId, lastIds);
  const statuses = new Map<string, MastodonStatus>();
  for (const s of presentStatuses(deps, lastIds.filter((id) => visible.has(id)), viewerId)) statuses.set(s.id, s);
  return rows.map((row, i) => {
    let list = (participantIds[i] ?? []).map((id) => accounts.get(id)).filter((a): a is MastodonAccount => a !== undefined);
    // A conversation with oneself lists oneself, as Mastodon does.
    if (list.length === 0) list = [accounts.get(viewerId)].filter((a): a is MastodonAccount => a !== undefined);
    return toMastodonConversation(row, list, (row.last_status_id && statuses.get(row.last_status_id)) || null);
  });
}

/** A page of the viewer's conversations, newest last status first (cursor: last status id). */
export function listConversations(deps: Deps, viewerId: string, page: PageBounds): AccountConversationRow[] {
  return accountConversationsPage(deps.db, viewerId, page);
}

/** Marks one of the viewer's conversations read; 404 when it is not theirs. */
export function markConversationRead(deps: Deps, viewerId: string, id: string): MastodonConversation {
  const row = findOwnAccountConversation(deps.db, viewerId, id);
  if (!row) throw notFound();
  if (row.unread === 1) deps.db.transaction(() => markAccountConversationRead(deps.db, row.id));
  const [entity] = presentConversations(deps, [{ ...row, unread: 0 }], viewerId);
  if (!entity) throw notFound();
  return entity;
}

/**
 * Marks one of the viewer's conversations unread again (`POST /api/v1/conversations/:id/unread`,
 * mastodon/mastodon#25509, which masto.js calls); 404 when it is not theirs.
 */
export function markConversationUnread(deps: Deps, viewerId: string, id: string): MastodonConversation {
  const row = findOwnAccountConversation(deps.db, viewerId, id);
  if (!row) throw notFound();
  if (row.unread === 0) deps.db.transaction(() => markAccountConversationUnread(deps.db, row.id));
  const [entity] = presentConversations(deps, [{ ...row, unread: 1 }], viewerId);
  if (!entity) throw notFound();
  return entity;
}

/** Removes one of the viewer's conversations from their list; 404 when it is not theirs. */
export function removeConversation(deps: Deps, viewerId: string, id: string): void {
  const row = findOwnAccountConversation(deps.db, viewerId, id);
  if (!row) throw notFound();
  deps.db.transaction(() => deleteAccountConversation(deps.db, row.id));
}
