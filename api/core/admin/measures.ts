import { metricDaily, metricTotal, tagExists, type MetricParams } from '../../db/repos/admin-metrics.js';
import { badRequest, notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { dayIso, daysOf, humanBytes, periodParams, previousPeriod, type Period } from './measures-period.js';

/**
 * The admin dashboard's measures (`POST /api/v1/admin/measures`, Mastodon's Admin::Measure): each
 * a number per UTC day of the period with its total, and the total of the period before for
 * comparison. Everything is counted from this instance's own tables (db/repos/admin-metrics.ts),
 * so what the instance never stored cannot be counted: `interactions` counts the favourites,
 * boosts and replies that still exist (an undone favourite is gone), and `active_users` counts
 * the days users used the instance since this version recorded them (user_activity_days: a sign-in
 * or a request with a token). The `instance_*` totals are of all time, as Mastodon's are, and come
 * without `previous_total`.
 */

/** One day of a measure. */
export interface MastodonAdminMeasureData {
  date: string;
  value: string;
}

/** Mastodon's Admin::Measure. */
export interface MastodonAdminMeasure {
  key: string;
  unit: string | null;
  total: string;
  human_value?: string;
  previous_total?: string;
  data: MastodonAdminMeasureData[];
}

/** What a measure is about besides the period. */
type Subject = 'none' | 'tag' | 'domain';

interface MeasureSpec {
  subject: Subject;
  /** Whether the total counts the period only (then `previous_total` is given). */
  totalInPeriod: boolean;
  unit: 'bytes' | null;
}

/** Every measure Mastodon documents, in its order. */
const MEASURES: Record<string, MeasureSpec> = {
  active_users: { subject: 'none', totalInPeriod: true, unit: null },
  new_users: { subject: 'none', totalInPeriod: true, unit: null },
  interactions: { subject: 'none', totalInPeriod: true, unit: null },
  opened_reports: { subject: 'none', totalInPeriod: true, unit: null },
  resolved_reports: { subject: 'none', totalInPeriod: true, unit: null },
  tag_accounts: { subject: 'tag', totalInPeriod: true, unit: null },
  tag_uses: { subject: 'tag', totalInPeriod: true, unit: null },
  tag_servers: { subject: 'tag', totalInPeriod: true, unit: null },
  instance_accounts: { subject: 'domain', totalInPeriod: false, unit: null },
  instance_media_attachments: { subject: 'domain', totalInPeriod: false, unit: 'bytes' },
  instance_reports: { subject: 'domain', totalInPeriod: false, unit: null },
  instance_statuses: { subject: 'domain', totalInPeriod: false, unit: null },
  instance_follows: { subject: 'domain', totalInPeriod: false, unit: null },
  instance_followers: { subject: 'domain', totalInPeriod: false, unit: null },
};

/** The keys asked for (`keys[]`, one string, or a JSON array), without repeats; unknown ones are dropped, as Mastodon drops them. */
export function requestedKeys(value: unknown, known: readonly string[]): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  return [...new Set(list.filter((k): k is string => typeof k === 'string' && known.includes(k)))];
}

/** The member `name` of a key's parameters (`tag_uses[id]`), as text, or null. */
export function subjectParam(params: Record<string, unknown>, key: string, name: 'id' | 'domain'): string | null {
  const nested = params[key];
  if (nested === null || typeof nested !== 'object' || Array.isArray(nested)) return null;
  const value = (nested as Record<string, unknown>)[name];
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/**
 * The tag or domain a measure or dimension is about: 400 when it is not given, 404 for an unknown
 * tag (Mastodon finds the tag first). Domains are compared lower-case.
 */
export function subjectOf(deps: Deps, params: Record<string, unknown>, key: string, subject: Subject): { tagId?: string; domain?: string } {
  if (subject === 'none') return {};
  const name = subject === 'tag' ? 'id' : 'domain';
  const value = subjectParam(params, key, name);
  if (value === null) throw badRequest(`param is missing or the value is empty: ${key}[${name}]`);
  if (subject === 'domain') return { domain: value.toLowerCase().replace(/\.$/, '') };
  if (!isId(value) || !tagExists(deps.db, value)) throw notFound();
  return { tagId: value };
}

function measureOne(deps: Deps, key: string, spec: MeasureSpec, period: Period, about: { tagId?: string; domain?: string }): MastodonAdminMeasure {
  const params: MetricParams = periodParams(period, about);
  const byDay = new Map(metricDaily(deps.db, key, params).map((d) => [d.day, d.value]));
  const total = metricTotal(deps.db, key, params);
  const measure: MastodonAdminMeasure = {
    key,
    unit: spec.unit,
    total: String(total),
    data: daysOf(period).map((day) => ({ date: dayIso(day), value: String(byDay.get(day) ?? 0) })),
  };
  if (spec.unit === 'bytes') measure.human_value = humanBytes(total);
  if (spec.totalInPeriod) measure.previous_total = String(metricTotal(deps.db, key, periodParams(previousPeriod(period), about)));
  return measure;
}

/**
 * The measures asked for over a period, in the order asked (unknown keys left out). A measure
 * about a tag or a domain needs it in `<key>[id]` or `<key>[domain]` (400 without, 404 for an
 * unknown tag); every subject is checked before anything is counted.
 */
export function computeMeasures(deps: Deps, keys: readonly string[], period: Period, params: Record<string, unknown>): MastodonAdminMeasure[] {
  const wanted = keys.flatMap((key) => {
    const spec = MEASURES[key];
    return spec ? [{ key, spec, about: subjectOf(deps, params, key, spec.subject) }] : [];
  });
  return wanted.map((w) => measureOne(deps, w.key, w.spec, period, w.about));
}

/** The measure keys, in Mastodon's order. */
export const MEASURE_KEYS: readonly string[] = Object.keys(MEASURES);
