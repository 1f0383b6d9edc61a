import type { AccountRow } from '../../db/repos/accounts.js';
import { countPins, deletePin, hasPin, insertPin } from '../../db/repos/interactions.js';
import { now } from '../../util/clock.js';
import { ApiError } from '../../util/errors.js';
import { Problems } from '../filters/problems.js';
import { newId } from '../../util/ids.js';
import { ACCOUNT_LIMITS } from '../instance/limits.js';
import type { Deps } from '../deps.js';
import { loadVisibleStatus } from './target.js';

/**
 * Pins one of the account's own statuses to its profile and returns its id. As Mastodon's
 * StatusPinValidator: not a reblog, not someone else's, not direct (private ones may be pinned
 * since Mastodon 3.5), and at most `max_pinned_statuses` (5) pins; every broken rule is named in
 * one 422. Pinning a pinned status answers 422 "Duplicate record", as Mastodon's unique index does.
 */
export function pinStatus(deps: Deps, account: AccountRow, statusId: string): string {
  const status = loadVisibleStatus(deps, statusId, account.id);
  const at = now();
  deps.db.transaction(() => {
    // Rules of the pin as a whole: Rails reports them on `base`, without an attribute name.
    const problems = new Problems();
    if (status.reblog_of_id !== null) problems.add('base', '', 'ERR_REBLOG', 'A boost cannot be pinned');
    if (status.account_id !== account.id) problems.add('base', '', 'ERR_OWNERSHIP', "Someone else's post cannot be pinned");
    if (status.visibility === 'direct') problems.add('base', '', 'ERR_DIRECT', 'Posts that are only visible to mentioned users cannot be pinned');
    if (countPins(deps.db, account.id) >= ACCOUNT_LIMITS.max_pinned_statuses) {
      problems.add('base', '', 'ERR_LIMIT', 'You have already pinned the maximum number of posts');
    }
    problems.throwIfAny();
    if (hasPin(deps.db, account.id, status.id)) throw new ApiError(422, 'Duplicate record');
    insertPin(deps.db, { id: newId(at), account_id: account.id, status_id: status.id, created_at: at });
  });
  deps.events.emit('pin.created', { statusId: status.id, accountId: account.id });
  return status.id;
}

/** Unpins a status from the account's profile; idempotent. The status must be visible (404 otherwise). */
export function unpinStatus(deps: Deps, account: AccountRow, statusId: string): string {
  const status = loadVisibleStatus(deps, statusId, account.id);
  if (deletePin(deps.db, account.id, status.id)) deps.events.emit('pin.deleted', { statusId: status.id, accountId: account.id });
  return status.id;
}
