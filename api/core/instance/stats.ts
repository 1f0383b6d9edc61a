import { domainToUnicode } from 'node:url';
import {
  countActiveLocalUsers,
  countLocalStatuses,
  countLoginsByWeek,
  countPublicLocalStatusesByWeek,
  countRegistrationsByWeek,
  countUsersActiveSince,
  listRemoteDomains,
  type BucketCount,
} from '../../db/repos/instance.js';
import { now } from '../../util/clock.js';
import { minIdAtTime } from '../../util/ids.js';
import type { Deps } from '../deps.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const WEEK_MS = 7 * DAY_MS;

/** How many weeks `GET /api/v1/instance/activity` reports. */
export const ACTIVITY_WEEKS = 12;

/** Counts the instance endpoints and NodeInfo publish. */
export interface InstanceStats {
  /** Local users who can sign in. */
  userCount: number;
  /** Statuses written here. */
  statusCount: number;
  /** Distinct remote domains we know accounts from. */
  domainCount: number;
}

/** A stored domain (`host` or `host:port`, possibly punycode) in Unicode form. */
function toUnicode(domain: string): string {
  const [, host = domain, port = ''] = /^(.*?)(:\d+)?$/.exec(domain) ?? [];
  return (domainToUnicode(host) || host) + port;
}

/** Remote domains in Unicode (never punycode), each once, sorted. */
export function knownPeers(deps: Deps): string[] {
  const unicode = listRemoteDomains(deps.db).map(toUnicode);
  return [...new Set(unicode)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** User, status and domain counts. */
export function instanceStats(deps: Deps): InstanceStats {
  return {
    userCount: countActiveLocalUsers(deps.db),
    statusCount: countLocalStatuses(deps.db),
    domainCount: knownPeers(deps).length,
  };
}

/** Users active in the last `weeks` weeks (4 for a month, 24 for half a year, as Mastodon counts). */
export function activeUserCount(deps: Deps, weeks: number): number {
  return countUsersActiveSince(deps.db, now() - weeks * WEEK_MS);
}

/** One week of activity; every number is a string, as Mastodon sends them. */
export interface ActivityWeek {
  /** Monday 00:00 UTC that starts the week, in Unix seconds. */
  week: string;
  /** Public and unlisted statuses written here that week (private and direct ones excluded). */
  statuses: string;
  /** Distinct users who signed in or used the API that week. */
  logins: string;
  /** Users who signed up that week. */
  registrations: string;
}

/** Monday 00:00 UTC of the week containing `at`. */
export function startOfWeek(at: number): number {
  const d = new Date(at);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  const sinceMonday = (d.getUTCDay() + 6) % 7;
  return midnight - sinceMonday * DAY_MS;
}

/** The last twelve weeks of activity, the current week first. */
export function weeklyActivity(deps: Deps): ActivityWeek[] {
  const current = startOfWeek(now());
  const start = current - (ACTIVITY_WEEKS - 1) * WEEK_MS;
  const end = current + WEEK_MS;
  // Local ids are made from the creation time; a day's margin keeps the id bounds from cutting
  // off a status whose id borrowed a neighbouring millisecond.
  const statuses = countPublicLocalStatusesByWeek(deps.db, { start, end, min_id: minIdAtTime(start - DAY_MS), max_id: minIdAtTime(end + DAY_MS) });
  const logins = countLoginsByWeek(deps.db, { start, end });
  const registrations = countRegistrationsByWeek(deps.db, { start, end });
  const byBucket = (rows: BucketCount[]) => new Map(rows.map((r) => [r.bucket, r.n]));
  const s = byBucket(statuses);
  const l = byBucket(logins);
  const r = byBucket(registrations);
  const weeks: ActivityWeek[] = [];
  for (let bucket = ACTIVITY_WEEKS - 1; bucket >= 0; bucket--) {
    weeks.push({
      week: String(Math.floor((start + bucket * WEEK_MS) / 1000)),
      statuses: String(s.get(bucket) ?? 0),
      logins: String(l.get(bucket) ?? 0),
      registrations: String(r.get(bucket) ?? 0),
    });
  }
  return weeks;
}
