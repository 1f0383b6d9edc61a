import { cohortUsers } from '../../db/repos/admin-metrics.js';
import { isoTime } from '../../util/clock.js';
import { unprocessable } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { DAY_MS, parseDay } from './measures-period.js';

/**
 * Retention cohorts (`POST /api/v1/admin/retention`, Mastodon's Admin::Cohort): the users who
 * signed up in each day (or month) of a period, and for each day (or month) from then to the end
 * of the period, how many of them were still using the instance: whose last activity (a request
 * with their token, a sign-in, or else signing up) falls in that bucket or later, as Mastodon
 * counts users whose last sign-in is that recent.
 */

/** One bucket of a cohort. */
export interface MastodonCohortData {
  date: string;
  rate: number;
  value: string;
}

/** Mastodon's Admin::Cohort. */
export interface MastodonAdminCohort {
  period: string;
  frequency: 'day' | 'month';
  data: MastodonCohortData[];
}

/** The most cohorts one request may ask for: a year of days, or ten years of months. */
const MAX_DAY_COHORTS = 366;
const MAX_MONTH_COHORTS = 120;

/** A bucket: its start and the start of the next, in ms. */
interface Bucket {
  start: number;
  end: number;
}

/** The day or month buckets from the one holding `fromDay` to the one holding `toDay`. */
function buckets(fromDay: number, toDay: number, frequency: 'day' | 'month'): Bucket[] {
  const out: Bucket[] = [];
  if (frequency === 'day') {
    for (let d = fromDay; d <= toDay; d++) out.push({ start: d * DAY_MS, end: (d + 1) * DAY_MS });
    return out;
  }
  const first = new Date(fromDay * DAY_MS);
  const last = new Date(toDay * DAY_MS);
  let y = first.getUTCFullYear();
  let m = first.getUTCMonth();
  while (y < last.getUTCFullYear() || (y === last.getUTCFullYear() && m <= last.getUTCMonth())) {
    out.push({ start: Date.UTC(y, m, 1), end: Date.UTC(y, m + 1, 1) });
    m++;
    if (m === 12) {
      m = 0;
      y++;
    }
  }
  return out;
}

/**
 * The cohorts of a period. As Mastodon, a request without `start_at` or `end_at` (or with dates
 * that cannot be read) answers `[]`; a `frequency` other than `month` means `day`. 422 for a
 * period that ends before it starts or holds too many cohorts.
 */
export function computeRetention(deps: Deps, input: Record<string, unknown>): MastodonAdminCohort[] {
  const fromDay = parseDay(input.start_at);
  const toDay = parseDay(input.end_at);
  if (fromDay === null || toDay === null) return [];
  if (toDay < fromDay) throw unprocessable('end_at must not be before start_at');
  const frequency = input.frequency === 'month' ? 'month' : 'day';
  const axis = buckets(fromDay, toDay, frequency);
  if (axis.length > (frequency === 'day' ? MAX_DAY_COHORTS : MAX_MONTH_COHORTS)) throw unprocessable('the period holds too many cohorts');
  const first = axis[0];
  const last = axis[axis.length - 1];
  if (!first || !last) return [];

  // Each user once: when they signed up and when they were last seen.
  const users = cohortUsers(deps.db, first.start, last.end).map((u) => ({
    createdAt: u.created_at,
    lastSeen: Math.max(u.created_at, u.last_sign_in_at ?? 0, u.last_day === null ? 0 : u.last_day * DAY_MS),
  }));
  return axis.map((cohort, i) => {
    const members = users.filter((u) => u.createdAt >= cohort.start && u.createdAt < cohort.end);
    return {
      period: isoTime(cohort.start),
      frequency,
      data: axis.slice(i).map((bucket) => {
        const retained = members.filter((u) => u.lastSeen >= bucket.start).length;
        return { date: isoTime(bucket.start), rate: members.length === 0 ? 0 : retained / members.length, value: String(retained) };
      }),
    };
  });
}
