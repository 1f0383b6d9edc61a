import type { MetricParams } from '../../db/repos/admin-metrics.js';
import { isoTime } from '../../util/clock.js';
import { badRequest, unprocessable } from '../../util/errors.js';
import { minIdAtTime } from '../../util/ids.js';

/** Milliseconds in a day. */
export const DAY_MS = 86_400_000;

/** The longest period the dashboard methods count over (a day per entry of `data`): ten years. */
export const MAX_PERIOD_DAYS = 3660;

/** A period of whole UTC days, both ends included, as day numbers (days since the epoch). */
export interface Period {
  fromDay: number;
  toDay: number;
}

/**
 * The UTC day of a date or time as the dashboard methods take it: the time of day, if given, is
 * ignored (Mastodon takes the beginning of the day in UTC). Null when absent or unreadable.
 */
export function parseDay(value: unknown): number | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  const text = value.trim();
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  return Number.isFinite(ms) ? Math.floor(ms / DAY_MS) : null;
}

/**
 * The period of `start_at` and `end_at`: 400 when one is missing or not a date, 422 when it ends
 * before it starts or spans more than MAX_PERIOD_DAYS.
 */
export function requirePeriod(input: Record<string, unknown>): Period {
  const fromDay = parseDay(input.start_at);
  if (fromDay === null) throw badRequest('param is missing or the value is empty: start_at');
  const toDay = parseDay(input.end_at);
  if (toDay === null) throw badRequest('param is missing or the value is empty: end_at');
  return checkedPeriod({ fromDay, toDay });
}

/** A period checked for order and length (422 otherwise). */
export function checkedPeriod(period: Period): Period {
  if (period.toDay < period.fromDay) throw unprocessable('end_at must not be before start_at');
  if (period.toDay - period.fromDay + 1 > MAX_PERIOD_DAYS) throw unprocessable(`the period may span at most ${MAX_PERIOD_DAYS} days`);
  return period;
}

/** The period of the same length just before this one (Mastodon's `previous_total`). */
export function previousPeriod(period: Period): Period {
  const length = period.toDay - period.fromDay + 1;
  return { fromDay: period.fromDay - length, toDay: period.fromDay - 1 };
}

/** The query parameters of a period (and of a tag or domain) for the metrics repos. */
export function periodParams(period: Period, about: { tagId?: string | null; domain?: string | null } = {}): MetricParams {
  const fromMs = period.fromDay * DAY_MS;
  const toMs = (period.toDay + 1) * DAY_MS;
  const domain = about.domain ?? null;
  return {
    from_ms: fromMs,
    to_ms: toMs,
    from_day: period.fromDay,
    to_day: period.toDay,
    since_id: minIdAtTime(fromMs),
    until_id: minIdAtTime(toMs),
    tag_id: about.tagId ?? null,
    domain,
    dot_domain: domain === null ? null : `.${domain}`,
  };
}

/** Midnight (UTC) of a day, as the dashboard's entities write dates. */
export function dayIso(day: number): string {
  return isoTime(day * DAY_MS);
}

/** Every day of a period, in order. */
export function daysOf(period: Period): number[] {
  const days: number[] = [];
  for (let d = period.fromDay; d <= period.toDay; d++) days.push(d);
  return days;
}

const SIZE_UNITS = ['KB', 'MB', 'GB', 'TB', 'PB'];

/** A size as Rails' number_to_human_size writes it: "0 Bytes", "1 Byte", "14.2 MB", "780 GB". */
export function humanBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'Byte' : 'Bytes'}`;
  let value = bytes;
  let unit = -1;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number(value.toPrecision(3))} ${SIZE_UNITS[unit]}`;
}
