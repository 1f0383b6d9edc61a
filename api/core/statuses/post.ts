import type { AccountRow } from '../../db/repos/accounts.js';
import { findScheduledStatus } from '../../db/repos/scheduled-statuses.js';
import { insertIdempotencyKey } from '../../db/repos/statuses.js';
import type { UserRow } from '../../db/repos/users.js';
import type { MastodonScheduledStatus } from '../../serializers/scheduled-status.js';
import type { MastodonStatus } from '../../serializers/status.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { presentScheduledStatuses, scheduleStatus } from '../scheduled/schedule.js';
import { checkAllowedMentions } from './allowed-mentions.js';
import { createStatus, findIdempotentResult, type NewStatusParams } from './create.js';
import { presentStatus } from './views.js';

/** The answer to POST /api/v1/statuses: a status, or a scheduled status when scheduled_at was given. */
export type PostResult = { kind: 'status'; status: MastodonStatus } | { kind: 'scheduled'; scheduled: MastodonScheduledStatus };

/**
 * POST /api/v1/statuses: posts now, or schedules when `scheduledAt` is in the future (at least five
 * minutes ahead, else 422; a time already past posts now, as Mastodon does). The Idempotency-Key
 * makes a repeat within an hour return what the first request made, status or scheduled status,
 * without writing anything. With `allowedMentions`, a status that would mention anyone else is
 * refused (422 with `unexpected_accounts`).
 */
export function postStatus(
  deps: Deps,
  account: AccountRow,
  user: UserRow,
  params: NewStatusParams,
  options: {
    idempotencyKey?: string | null | undefined;
    scheduledAt?: number | null | undefined;
    applicationId: string | null;
    /** The accounts the client expects the status to mention (`allowed_mentions`); null: no check. */
    allowedMentions?: readonly string[] | null | undefined;
  },
): PostResult {
  const key = options.idempotencyKey || null;
  if (key) {
    const earlier = findIdempotentResult(deps, account.id, key);
    if (earlier?.statusId) {
      const status = presentStatus(deps, earlier.statusId, account.id);
      if (status) return { kind: 'status', status };
    }
    if (earlier?.scheduledStatusId) {
      const row = findScheduledStatus(deps.db, earlier.scheduledStatusId, account.id);
      const [scheduled] = row ? presentScheduledStatuses(deps, [row]) : [];
      if (scheduled) return { kind: 'scheduled', scheduled };
    }
  }
  const withApp: NewStatusParams = { ...params, application_id: options.applicationId };
  if (options.scheduledAt !== undefined && options.scheduledAt !== null && options.scheduledAt > now()) {
    const scheduledAt = options.scheduledAt;
    const scheduled = deps.db.transaction(() => {
      const entity = scheduleStatus(deps, account, user, withApp, scheduledAt, options.applicationId);
      if (key) insertIdempotencyKey(deps.db, { account_id: account.id, key, status_id: null, scheduled_status_id: entity.id, created_at: now() });
      return entity;
    });
    return { kind: 'scheduled', scheduled };
  }
  // As Mastodon, only a status posted now is checked against `allowed_mentions`.
  if (options.allowedMentions) checkAllowedMentions(deps, withApp, options.allowedMentions);
  const created = createStatus(deps, account, user, withApp, { idempotencyKey: key });
  const status = presentStatus(deps, created.status.id, account.id);
  if (!status) throw notFound();
  return { kind: 'status', status };
}
