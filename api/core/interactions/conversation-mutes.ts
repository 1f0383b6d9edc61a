import type { AccountRow } from '../../db/repos/accounts.js';
import { deleteConversationMute, insertConversationMute } from '../../db/repos/interactions.js';
import { ApiError } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { loadVisibleStatus, originalOf } from './target.js';

function conversationOf(deps: Deps, account: AccountRow, statusId: string): { statusId: string; conversationId: string } {
  const named = loadVisibleStatus(deps, statusId, account.id);
  const conversationId = originalOf(deps, named).conversation_id;
  // Mastodon refuses (422) a status that belongs to no thread; ours always have one when local.
  if (conversationId === null) {
    const description = 'This post is not part of a conversation';
    throw new ApiError(422, `Validation failed: ${description}`, { extra: { details: { base: [{ error: 'ERR_INVALID', description }] } } });
  }
  return { statusId: named.id, conversationId };
}

/**
 * Mutes the thread of a status the account may see (404 otherwise): no more notifications from
 * it. Idempotent. Returns the id of the status to answer with (its `muted` is then true).
 */
export function muteConversation(deps: Deps, account: AccountRow, statusId: string): string {
  const { statusId: id, conversationId } = conversationOf(deps, account, statusId);
  insertConversationMute(deps.db, account.id, conversationId);
  return id;
}

/** Unmutes the thread of a status the account may see (404 otherwise). Idempotent. */
export function unmuteConversation(deps: Deps, account: AccountRow, statusId: string): string {
  const { statusId: id, conversationId } = conversationOf(deps, account, statusId);
  deleteConversationMute(deps.db, account.id, conversationId);
  return id;
}
