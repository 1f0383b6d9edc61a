import type { AccountRow } from '../../db/repos/accounts.js';
import { deleteFavourite, insertFavourite } from '../../db/repos/interactions.js';
import { bumpStatusCounter } from '../../db/repos/statuses.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { findStatus, loadVisibleStatus, originalOf } from './target.js';

/**
 * Favourites a status the account may see (404 otherwise). Favouriting twice changes nothing.
 * A reblog's id favourites the reblogged status. Returns the id of the status to answer with
 * (the one the client named).
 */
export function favouriteStatus(deps: Deps, account: AccountRow, statusId: string): string {
  const named = loadVisibleStatus(deps, statusId, account.id);
  const target = originalOf(deps, named);
  const at = now();
  const favouriteId = newId(at);
  const created = deps.db.transaction(() => {
    const added = insertFavourite(deps.db, { id: favouriteId, account_id: account.id, status_id: target.id, created_at: at });
    if (added) bumpStatusCounter(deps.db, target.id, 'favourites_count', 1);
    return added;
  });
  if (created) deps.events.emit('favourite.created', { favouriteId, statusId: target.id, accountId: account.id });
  return named.id;
}

/**
 * Removes the account's favourite of a status. An existing favourite is removed even when the
 * status is no longer visible to the account (as Mastodon does); without one, the status must be
 * visible (404 otherwise) and is answered unchanged.
 */
export function unfavouriteStatus(deps: Deps, account: AccountRow, statusId: string): string {
  const named = findStatus(deps, statusId);
  if (named) {
    const target = originalOf(deps, named);
    const favouriteId = deps.db.transaction(() => {
      const removed = deleteFavourite(deps.db, account.id, target.id);
      if (removed !== undefined) bumpStatusCounter(deps.db, target.id, 'favourites_count', -1);
      return removed;
    });
    if (favouriteId !== undefined) {
      deps.events.emit('favourite.deleted', { favouriteId, statusId: target.id, accountId: account.id });
      return named.id;
    }
  }
  return loadVisibleStatus(deps, statusId, account.id).id;
}
