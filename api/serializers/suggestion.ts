import type { Uris } from '../util/uris.js';
import { toMastodonAccount, type Account, type AccountView } from './account.js';

/** Why an account is suggested, in Mastodon's `sources` vocabulary (4.3+). */
export type SuggestionSource = 'featured' | 'most_followed' | 'most_interactions' | 'similar_to_recently_followed' | 'friends_of_friends';

/** The older single `source` value that clients before 4.3 read. */
export type LegacySuggestionSource = 'staff' | 'past_interactions' | 'global';

/** Mastodon's Suggestion entity (GET /api/v2/suggestions). */
export interface MastodonSuggestion {
  source: LegacySuggestionSource;
  sources: SuggestionSource[];
  account: Account;
}

/** Why one account is suggested, as core decided it. */
export interface SuggestionReasons {
  /** The viewer replied to, favourited or reblogged this account. */
  pastInteractions: boolean;
  sources: SuggestionSource[];
}

/**
 * The Suggestion entity. Past interactions have no name among the 4.3 `sources` (Mastodon dropped
 * that source), so they show only through the legacy `source`, which documents
 * `past_interactions`; an account suggested for that reason alone has empty `sources`.
 */
export function toMastodonSuggestion(view: AccountView, reasons: SuggestionReasons, uris: Uris): MastodonSuggestion {
  const source: LegacySuggestionSource = reasons.pastInteractions ? 'past_interactions' : reasons.sources.includes('featured') ? 'staff' : 'global';
  return { source, sources: [...reasons.sources], account: toMastodonAccount(view, uris) };
}
