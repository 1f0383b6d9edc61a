import { findAccountById } from '../../db/repos/accounts.js';
import { claimScheduledStatus, findDueScheduledStatusIds } from '../../db/repos/scheduled-statuses.js';
import { findUserByAccountId } from '../../db/repos/users.js';
import { parseScheduledParams } from '../../serializers/scheduled-status.js';
import { now } from '../../util/clock.js';
import { ApiError } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { createStatus } from '../statuses/create.js';

/**
 * Publishes one scheduled status if it is still there. Claiming the row (deleting it) and creating
 * the status happen in ONE transaction, so a crash publishes either nothing (the row is still
 * there at the next start) or the status with the row gone: never twice. createStatus nests as a
 * savepoint; its 'status.created' listeners run inside this transaction, which commits as soon as
 * it returns. As Mastodon's worker does, a status that can no longer be posted (its reply target
 * or media gone, its author disabled) is dropped with its row.
 */
function publishOne(deps: Deps, id: string): string | null {
  return deps.db.transaction(() => {
    const row = claimScheduledStatus(deps.db, id);
    if (!row) return null;
    const account = findAccountById(deps.db, row.account_id);
    const user = findUserByAccountId(deps.db, row.account_id);
    if (!account || !user || user.disabled || account.suspended_at !== null) return null;
    const params = parseScheduledParams(row);
    try {
      return createStatus(deps, account, user, { ...params, application_id: row.application_id }).status.id;
    } catch (err) {
      // Validation failures drop the status (as Mastodon does); anything else is a bug and rolls
      // the claim back, so the status is tried again at the next tick.
      if (!(err instanceof ApiError)) throw err;
      console.warn(`scheduled status ${row.id} was dropped: ${err.message}`);
      return null;
    }
  });
}

/**
 * Publishes every scheduled status whose time has come (oldest first, in batches), through the
 * same `createStatus` as POST /api/v1/statuses. Returns how many statuses were published.
 */
export function publishDueScheduledStatuses(deps: Deps, batch = 50): number {
  let published = 0;
  for (const id of findDueScheduledStatusIds(deps.db, now(), batch)) {
    if (publishOne(deps, id) !== null) published++;
  }
  return published;
}
