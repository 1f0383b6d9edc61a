import { NOTIFICATION_TYPES, type NotificationType } from '../notifications/types.js';

/**
 * What a push subscription asks for: which notification types (`alerts`) and from whom (`policy`),
 * read from request parameters the way Mastodon reads them.
 */

/** From whom a subscription receives pushes: anyone, accounts the user follows, followers of the user, no one. */
export const PUSH_POLICIES = ['all', 'followed', 'follower', 'none'] as const;
export type PushPolicy = (typeof PUSH_POLICIES)[number];

/** A subscription's alerts as stored: type → the value as cast (null for an empty value). */
export type StoredAlerts = Partial<Record<NotificationType, boolean | null>>;

// Rails' ActiveModel boolean cast, which Mastodon applies to each alert: exactly these are false,
// an empty string is nil, and everything else is true ('yes', 'no' and '2' included). No trimming.
const RAILS_FALSE: ReadonlySet<unknown> = new Set([false, 0, '0', 'f', 'F', 'false', 'FALSE', 'off', 'OFF']);

/**
 * One alert value cast as Mastodon casts it: true, false, null (an empty or null value), or
 * undefined for a value that is not a scalar (Rails' strong parameters drop it).
 */
export function castAlert(value: unknown): boolean | null | undefined {
  if (value === null || value === '') return null;
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') return !RAILS_FALSE.has(value);
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The alerts of `data[alerts]`, typecast: only notification types are kept (others are ignored,
 * as Mastodon permits only those). masto.js sends the admin alerts nested (`admin: {sign_up,
 * report}`, its camelCase `admin.signUp` turned to snake case); they count as `admin.sign_up` and
 * `admin.report` unless those are given themselves.
 */
export function castAlerts(raw: unknown): StoredAlerts {
  const out: StoredAlerts = {};
  if (!isRecord(raw)) return out;
  const nested = isRecord(raw.admin) ? raw.admin : {};
  const given: Record<string, unknown> = { 'admin.sign_up': nested.sign_up, 'admin.report': nested.report, ...raw };
  for (const type of NOTIFICATION_TYPES) {
    if (!(type in given) || given[type] === undefined) continue;
    const value = castAlert(given[type]);
    if (value !== undefined) out[type] = value;
  }
  return out;
}

/** Parses stored alerts (JSON text); anything unreadable counts as no alerts. */
export function parseStoredAlerts(json: string): StoredAlerts {
  try {
    const value: unknown = JSON.parse(json);
    return isRecord(value) ? castAlerts(value) : {};
  } catch {
    return {};
  }
}

/** Whether stored alerts ask for pushes of this notification type. */
export function alertEnabled(alerts: StoredAlerts, type: string): boolean {
  return (alerts as Record<string, boolean | null | undefined>)[type] === true;
}

/** True when `value` is one of the four policies. */
export function isPushPolicy(value: unknown): value is PushPolicy {
  return typeof value === 'string' && (PUSH_POLICIES as readonly string[]).includes(value);
}
