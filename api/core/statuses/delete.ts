import { findAccountById } from '../../db/repos/accounts.js';
import { deleteMediaOfStatus } from '../../db/repos/media.js';
import { findMentionsByStatusIds } from '../../db/repos/mentions.js';
import { findQuoteOfStatus } from '../../db/repos/quotes.js';
import {
  bumpAccountStatuses,
  bumpStatusCounter,
  deleteStatusRow,
  findReblogsOf,
  findStatusById,
  type StatusRow,
} from '../../db/repos/statuses.js';
import { statusUri, type MastodonStatus } from '../../serializers/status.js';
import { notFound } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import type { EventMap } from '../events.js';
import { presentStatus } from './views.js';

function uriOf(deps: Deps, status: StatusRow): string {
  const author = findAccountById(deps.db, status.account_id);
  return statusUri(status, author ?? { username: '' }, deps.uris);
}

/**
 * The status a reblog reblogs, as the 'status.deleted' payload names it: read before the rows go
 * (the reblogs of a deleted status go with it), null for anything else.
 */
export function reblogTargetOf(deps: Deps, status: StatusRow): { uri: string; accountId: string } | null {
  const original = status.reblog_of_id === null ? undefined : findStatusById(deps.db, status.reblog_of_id);
  return original ? { uri: uriOf(deps, original), accountId: original.account_id } : null;
}

/**
 * Removes a status row and what hangs on it, inside the caller's transaction, keeping counters
 * right: the author's statuses_count, the parent's replies_count, the reblogged status's
 * reblogs_count (when it is a reblog). Replies keep the parent's URI so they still read as replies.
 * Returns the 'status.deleted' payload to emit after commit.
 */
function removeRow(deps: Deps, status: StatusRow, uri: string, mentionedAccountIds: string[]): EventMap['status.deleted'] {
  const db = deps.db;
  if (status.visibility !== 'direct') bumpAccountStatuses(db, status.account_id, -1, null);
  if (status.reblog_of_id !== null) bumpStatusCounter(db, status.reblog_of_id, 'reblogs_count', -1);
  if (status.in_reply_to_id !== null && (status.visibility === 'public' || status.visibility === 'unlisted')) {
    bumpStatusCounter(db, status.in_reply_to_id, 'replies_count', -1);
  }
  const reblogOf = reblogTargetOf(deps, status);
  db.query('UPDATE statuses SET in_reply_to_uri = @uri WHERE in_reply_to_id = @status_id').run({ uri, status_id: status.id });
  deleteStatusRow(db, status.id);
  return {
    statusId: status.id,
    accountId: status.account_id,
    uri,
    visibility: status.visibility,
    mentionedAccountIds,
    reblogOfId: status.reblog_of_id,
    reblogOf,
    inReplyToAccountId: status.in_reply_to_account_id,
  };
}

/**
 * Deletes one of the account's statuses (or reblogs) and the reblogs of it, in one transaction,
 * and returns it as it was, with its raw `text`, poll and media, so that a client can redraft it.
 * Media stay, detached, for the redraft unless `deleteMedia`. Emits 'status.deleted' for the
 * status and for each of its reblogs ('quote.deleted' too when it quoted something). 404 when it
 * is not the account's.
 */
export function deleteStatus(deps: Deps, accountId: string, statusId: string, options: { deleteMedia?: boolean } = {}): MastodonStatus {
  const db = deps.db;
  const status = db.query<StatusRow>('SELECT * FROM statuses WHERE id = ?').get(statusId);
  if (!status || status.account_id !== accountId) throw notFound();
  const entity = presentStatus(deps, status.id, accountId, { source: true });
  if (!entity) throw notFound();
  const uri = uriOf(deps, status);
  const mentioned = findMentionsByStatusIds(db, [status.id]).map((m) => m.account_id);
  const reblogs = findReblogsOf(db, status.id).map((r) => ({ row: r, uri: uriOf(deps, r) }));
  const quote = findQuoteOfStatus(db, status.id);

  const events = db.transaction(() => {
    const out: EventMap['status.deleted'][] = [];
    for (const reblog of reblogs) out.push(removeRow(deps, reblog.row, reblog.uri, []));
    if (options.deleteMedia) deleteMediaOfStatus(db, status.id);
    out.push(removeRow(deps, status, uri, mentioned));
    return out;
  });

  for (const payload of events) {
    if (payload.reblogOfId !== null) {
      deps.events.emit('reblog.deleted', { statusId: payload.statusId, reblogOfId: payload.reblogOfId, accountId: payload.accountId });
    }
    deps.events.emit('status.deleted', payload);
  }
  if (quote) deps.events.emit('quote.deleted', { quoteId: quote.id, statusId: quote.status_id, quotedStatusId: quote.quoted_status_id });
  return entity;
}
