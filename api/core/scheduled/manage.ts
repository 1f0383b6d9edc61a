import type { PageBounds } from '../../db/paging.js';
import {
  deleteScheduledStatus,
  findScheduledStatus,
  scheduledStatusesPage,
  updateScheduledAt,
} from '../../db/repos/scheduled-statuses.js';
import type { MastodonScheduledStatus } from '../../serializers/scheduled-status.js';
import { notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { checkScheduleLimits, presentScheduledStatuses } from './schedule.js';

/** One page of an account's scheduled statuses, newest first, with the ids for the Link header. */
export function listScheduledStatuses(
  deps: Deps,
  accountId: string,
  page: PageBounds,
): { items: MastodonScheduledStatus[]; cursors: { first: string; last: string } | null } {
  const rows = scheduledStatusesPage(deps.db, accountId, page);
  const first = rows[0];
  const last = rows[rows.length - 1];
  return { items: presentScheduledStatuses(deps, rows), cursors: first && last ? { first: first.id, last: last.id } : null };
}

function loadOwn(deps: Deps, accountId: string, id: string) {
  const row = isId(id) ? findScheduledStatus(deps.db, id, accountId) : undefined;
  if (!row) throw notFound();
  return row;
}

/** One of the account's scheduled statuses; 404 when it is not theirs or does not exist. */
export function getScheduledStatus(deps: Deps, accountId: string, id: string): MastodonScheduledStatus {
  const [entity] = presentScheduledStatuses(deps, [loadOwn(deps, accountId, id)]);
  if (!entity) throw notFound();
  return entity;
}

/**
 * Moves one of the account's scheduled statuses to `scheduledAt` (ms): 404 when not theirs, 422
 * when the new time breaks the schedule rules (the status itself does not count against the limits).
 */
export function rescheduleStatus(deps: Deps, accountId: string, id: string, scheduledAt: number): MastodonScheduledStatus {
  deps.db.transaction(() => {
    const row = loadOwn(deps, accountId, id);
    checkScheduleLimits(deps, accountId, Math.floor(scheduledAt), row.id);
    updateScheduledAt(deps.db, row.id, Math.floor(scheduledAt));
  });
  return getScheduledStatus(deps, accountId, id);
}

/** Cancels (deletes) one of the account's scheduled statuses; 404 when not theirs. */
export function cancelScheduledStatus(deps: Deps, accountId: string, id: string): void {
  if (!isId(id) || !deleteScheduledStatus(deps.db, id, accountId)) throw notFound();
}
