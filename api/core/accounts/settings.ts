import { findUserById, updateUser, type UserRow } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import { notFound, unprocessable } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { isLanguageCode } from './languages.js';

/** Visibility a new status gets when the client does not choose one. */
export type DefaultPrivacy = 'public' | 'unlisted' | 'private' | 'direct';
/** Who may quote new statuses by default (Mastodon 4.5 quote policies). */
export type QuotePolicy = 'public' | 'followers' | 'nobody';
/** How clients should show media: Mastodon's `reading:expand:media`. */
export type ExpandMedia = 'default' | 'show_all' | 'hide_all';

/**
 * A user's posting defaults and reading preferences, kept in `users.settings` (JSON). Read them
 * with `getUserSettings`; every field always has a usable value.
 */
export interface UserSettings {
  default_privacy: DefaultPrivacy;
  default_sensitive: boolean;
  /** ISO 639-1 code used for statuses posted without a language; null: none chosen. */
  default_language: string | null;
  default_quote_policy: QuotePolicy;
  expand_media: ExpandMedia;
  expand_spoilers: boolean;
  autoplay_gifs: boolean;
  /**
   * An explicit choice about search-engine indexing of the profile; null when never made, in
   * which case the account's discoverable/indexable settings decide (see the Account serializer).
   */
  noindex: boolean | null;
}

/** The settings of a user who never changed anything (Mastodon's defaults). */
export const DEFAULT_USER_SETTINGS: Readonly<UserSettings> = Object.freeze({
  default_privacy: 'public',
  default_sensitive: false,
  default_language: null,
  default_quote_policy: 'public',
  expand_media: 'default',
  expand_spoilers: false,
  autoplay_gifs: false,
  noindex: null,
});

const PRIVACIES: readonly string[] = ['public', 'unlisted', 'private', 'direct'];
const QUOTE_POLICIES: readonly string[] = ['public', 'followers', 'nobody'];
const EXPAND_MEDIA: readonly string[] = ['default', 'show_all', 'hide_all'];

function stored(user: Pick<UserRow, 'settings'>): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(user.settings);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    // A damaged settings document must not lock the person out: fall back to the defaults.
    return {};
  }
}

function pick<T>(value: unknown, valid: (v: unknown) => v is T, fallback: T): T {
  return valid(value) ? value : fallback;
}

const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const oneOf =
  <T extends string>(list: readonly string[]) =>
  (v: unknown): v is T =>
    typeof v === 'string' && list.includes(v);

/** A user's settings with defaults filled in; values that are not valid any more read as the default. */
export function getUserSettings(user: Pick<UserRow, 'settings'>): UserSettings {
  const s = stored(user);
  const d = DEFAULT_USER_SETTINGS;
  return {
    default_privacy: pick(s.default_privacy, oneOf<DefaultPrivacy>(PRIVACIES), d.default_privacy),
    default_sensitive: pick(s.default_sensitive, isBool, d.default_sensitive),
    default_language: typeof s.default_language === 'string' && isLanguageCode(s.default_language) ? s.default_language : null,
    default_quote_policy: pick(s.default_quote_policy, oneOf<QuotePolicy>(QUOTE_POLICIES), d.default_quote_policy),
    expand_media: pick(s.expand_media, oneOf<ExpandMedia>(EXPAND_MEDIA), d.expand_media),
    expand_spoilers: pick(s.expand_spoilers, isBool, d.expand_spoilers),
    autoplay_gifs: pick(s.autoplay_gifs, isBool, d.autoplay_gifs),
    noindex: typeof s.noindex === 'boolean' ? s.noindex : null,
  };
}

/** Checks a partial settings change; returns the first problem, or null when it is valid. */
export function userSettingsProblem(partial: Partial<UserSettings>): string | null {
  if (partial.default_privacy !== undefined && !PRIVACIES.includes(partial.default_privacy)) return 'Default privacy is not included in the list';
  if (partial.default_language !== undefined && partial.default_language !== null && !isLanguageCode(partial.default_language)) {
    return 'Default language is not included in the list';
  }
  if (partial.default_quote_policy !== undefined && !QUOTE_POLICIES.includes(partial.default_quote_policy)) return 'Default quote policy is not included in the list';
  if (partial.expand_media !== undefined && !EXPAND_MEDIA.includes(partial.expand_media)) return 'Expand media is not included in the list';
  for (const key of ['default_sensitive', 'expand_spoilers', 'autoplay_gifs'] as const) {
    if (partial[key] !== undefined && typeof partial[key] !== 'boolean') return `${key} must be a boolean`;
  }
  if (partial.noindex !== undefined && partial.noindex !== null && typeof partial.noindex !== 'boolean') return 'noindex must be a boolean';
  return null;
}

/**
 * Changes some of a user's settings (read, merge, write in one transaction; keys this version
 * does not know are kept). Throws 422 for an invalid value, 404 for an unknown user. Returns the
 * settings as they are now. Safe to call inside a caller's transaction.
 */
export function updateUserSettings(deps: Deps, userId: string, partial: Partial<UserSettings>): UserSettings {
  const problem = userSettingsProblem(partial);
  if (problem) throw unprocessable(problem);
  return deps.db.transaction(() => {
    const user = findUserById(deps.db, userId);
    if (!user) throw notFound();
    const next: Record<string, unknown> = { ...stored(user) };
    for (const [key, value] of Object.entries(partial)) {
      if (value !== undefined) next[key] = value;
    }
    const settings = JSON.stringify(next);
    updateUser(deps.db, userId, { settings, updated_at: now() });
    return getUserSettings({ settings });
  });
}
