import type { AccountRow } from '../../db/repos/accounts.js';
import { deleteBookmark, insertBookmark } from '../../db/repos/interactions.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { findStatus, loadVisibleStatus, originalOf } from './target.js';

/**
 * Bookmarks a status the account may see (404 otherwise); idempotent. A reblog's id bookmarks
 * the reblogged status. Returns the id of the status to answer with.
 */
export function bookmarkStatus(deps: Deps, account: AccountRow, statusId: string): string {
  const named = loadVisibleStatus(deps, statusId, account.id);
  const target = originalOf(deps, named);
  const at = now();
  insertBookmark(deps.db, { id: newId(at), account_id: account.id, status_id: target.id, created_at: at });
  return named.id;
}

/**
 * Removes a bookmark; like unfavouriting, an existing bookmark goes even when the status is no
 * longer visible, and without one the status must be visible (404 otherwise).
 */
export function unbookmarkStatus(deps: Deps, account: AccountRow, statusId: string): string {
  const named = findStatus(deps, statusId);
  if (named && deleteBookmark(deps.db, account.id, originalOf(deps, named).id)) return named.id;
  return loadVisibleStatus(deps, statusId, account.id).id;
}
