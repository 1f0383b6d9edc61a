import type { AccountRow } from '../../db/repos/accounts.js';
import { findMediaByIds } from '../../db/repos/media.js';
import {
  countScheduledStatuses,
  countScheduledStatusesBetween,
  insertScheduledStatus,
  type ScheduledStatusRow,
} from '../../db/repos/scheduled-statuses.js';
import type { UserRow } from '../../db/repos/users.js';
import { toMastodonScheduledStatus, type MastodonScheduledStatus, type ScheduledParams } from '../../serializers/scheduled-status.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { Problems } from '../filters/problems.js';
import { prepareStatus, type NewStatusParams } from '../statuses/create.js';

/**
 * Mastodon's limits on scheduled statuses (ScheduledStatus::TOTAL_LIMIT, DAILY_LIMIT and
 * PostStatusService::MIN_SCHEDULE_OFFSET). They are not advertised by the instance endpoints, so
 * they live here rather than in core/instance/limits.ts.
 */
export const SCHEDULED_LIMITS = {
  /** Pending scheduled statuses per account. */
  total: 300,
  /** Pending scheduled statuses per account and UTC day of publication. */
  daily: 25,
  /** How far in the future a status must be scheduled, in milliseconds: five minutes. */
  minOffsetMs: 5 * 60 * 1000,
} as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Reads a `scheduled_at` parameter (any date-time JS can parse; a bare date is midnight UTC) into
 * milliseconds since the epoch; 422 when it is not a date.
 */
export function parseScheduledAt(value: unknown): number {
  const ms = typeof value === 'string' && value.trim() !== '' ? Date.parse(value.trim()) : NaN;
  // throwIfAny always throws here.
  if (!Number.isFinite(ms)) new Problems().add('scheduled_at', 'Scheduled at', 'ERR_INVALID', 'is invalid').throwIfAny();
  return ms;
}

/**
 * Checks Mastodon's rules for a publication time, `exceptId` being the scheduled status that is
 * moved (it does not count against the limits): at least five minutes ahead, at most 300 pending
 * per account and 25 on the same UTC day. Throws a 422 naming every broken rule.
 */
export function checkScheduleLimits(deps: Deps, accountId: string, scheduledAt: number, exceptId: string | null): void {
  const problems = new Problems();
  if (scheduledAt <= now() + SCHEDULED_LIMITS.minOffsetMs) {
    problems.add('scheduled_at', 'Scheduled at', 'ERR_TOO_SOON', 'The scheduled date must be in the future');
  }
  if (countScheduledStatuses(deps.db, accountId, exceptId) >= SCHEDULED_LIMITS.total) {
    problems.add('base', '', 'ERR_OVER_TOTAL_LIMIT', `You have exceeded the limit of ${SCHEDULED_LIMITS.total} scheduled posts`);
  }
  const dayStart = Math.floor(scheduledAt / DAY_MS) * DAY_MS;
  if (countScheduledStatusesBetween(deps.db, accountId, dayStart, dayStart + DAY_MS, exceptId) >= SCHEDULED_LIMITS.daily) {
    problems.add('base', '', 'ERR_OVER_DAILY_LIMIT', `You have exceeded the limit of ${SCHEDULED_LIMITS.daily} scheduled posts for today`);
  }
  problems.throwIfAny();
}

/** Loads the media of scheduled statuses' params in one query, for the entity. */
export function presentScheduledStatuses(deps: Deps, rows: readonly ScheduledStatusRow[]): MastodonScheduledStatus[] {
  const mediaIds = rows.flatMap((r) => (JSON.parse(r.params) as ScheduledParams).media_ids ?? []);
  const media = findMediaByIds(deps.db, mediaIds);
  // Only the account's own media are shown, whatever ids were stored.
  for (const [id, m] of media) if (!rows.some((r) => r.account_id === m.account_id)) media.delete(id);
  return rows.map((r) => toMastodonScheduledStatus(r, media, deps.uris));
}

/**
 * Schedules a status for publication at `scheduledAt` (ms) instead of posting it, and returns the
 * ScheduledStatus entity. The parameters are checked now exactly as a status posted now would be
 * (422/404, nothing written), and the schedule limits too; then one row is written, keeping the
 * parameters as given (the visibility resolved to the user's default when absent). The job
 * scheduler publishes it when due through `createStatus`. The caller may run this inside its own
 * transaction (e.g. to record an Idempotency-Key with it).
 */
export function scheduleStatus(
  deps: Deps,
  account: AccountRow,
  user: UserRow,
  params: NewStatusParams,
  scheduledAt: number,
  applicationId: string | null,
): MastodonScheduledStatus {
  const prepared = prepareStatus(deps, account, user, params);
  const at = now();
  const stored: ScheduledParams = {
    text: params.text ?? '',
    poll: params.poll ?? null,
    media_ids: params.media_ids && params.media_ids.length > 0 ? [...params.media_ids] : null,
    sensitive: params.sensitive ?? null,
    spoiler_text: params.spoiler_text ?? null,
    visibility: prepared.visibility,
    language: params.language ?? null,
    in_reply_to_id: params.in_reply_to_id ?? null,
    // A quote is published as asked (its target checked again then); the policy only when given.
    quoted_status_id: params.quoted_status_id ?? null,
    ...(params.quote_approval_policy ? { quote_approval_policy: params.quote_approval_policy } : {}),
    application_id: applicationId,
    idempotency: null,
    scheduled_at: null,
    with_rate_limit: false,
  };
  const row: ScheduledStatusRow = {
    id: newId(at),
    account_id: account.id,
    application_id: applicationId,
    scheduled_at: Math.floor(scheduledAt),
    params: JSON.stringify(stored),
    created_at: at,
  };
  deps.db.transaction(() => {
    checkScheduleLimits(deps, account.id, row.scheduled_at, null);
    insertScheduledStatus(deps.db, row);
  });
  const [entity] = presentScheduledStatuses(deps, [row]);
  if (!entity) throw new Error('scheduled status vanished');
  return entity;
}
