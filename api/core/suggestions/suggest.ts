import { findAccountById } from '../../db/repos/accounts.js';
import { getSetting, setSetting } from '../../db/repos/settings.js';
import { deleteCandidate, eligibleActiveLocalIds, eligibleAmong, eligibleCandidateIds, insertDismissal } from '../../db/repos/suggestions.js';
import type { Account } from '../../serializers/account.js';
import { toMastodonSuggestion, type MastodonSuggestion, type SuggestionReasons } from '../../serializers/suggestion.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import { loadAccountViews, presentAccounts } from '../accounts/views.js';
import { accountHiddenSql } from '../relationships/exclusions.js';
import type { Deps } from '../deps.js';
import { CANDIDATE_LIFETIME_MS } from './install.js';

/**
 * Follow suggestions for a local user, from three sources in this order:
 * 1. past interactions: accounts the user replied to, favourited or reblogged without following
 *    them, by weight (reply 1, favourite 10, reblog 20), the more recently updated first on ties;
 * 2. staff-featured accounts, in the order staff put them (a settings list);
 * 3. active local accounts (discoverable, posted within 30 days), most followed first.
 * Sources 2 and 3 are the cold start: they fill what past interactions leave of the limit, which
 * for a new user is everything. Every source shares the exclusions (see db/repos/suggestions.ts),
 * with the viewer's blocks, mutes and domain blocks applied by the relationships rule
 * (`accountHiddenSql`).
 */

/** Settings key of the staff-featured accounts (a JSON array of account ids). */
const FEATURED_KEY = 'suggestions.featured_account_ids';
/** An account counts as active when it posted within this long. */
const ACTIVE_WINDOW_MS = 30 * 86_400_000;

/** One suggested account and why. */
export interface SuggestedAccount extends SuggestionReasons {
  accountId: string;
}

/** The staff-featured accounts, in order. */
export function featuredSuggestionIds(deps: Deps): string[] {
  const value = getSetting<unknown>(deps.db, FEATURED_KEY);
  return Array.isArray(value) ? value.filter(isId) : [];
}

/**
 * Staff feature an account in everyone's suggestions (appended to the list; featuring it again
 * changes nothing). An unknown account is 404.
 */
export function featureSuggestedAccount(deps: Deps, accountId: string): void {
  if (!isId(accountId) || !findAccountById(deps.db, accountId)) throw notFound();
  deps.db.transaction(() => {
    const ids = featuredSuggestionIds(deps);
    if (!ids.includes(accountId)) setSetting(deps.db, FEATURED_KEY, [...ids, accountId]);
  });
}

/** Staff stop featuring an account (not featured is not an error). */
export function unfeatureSuggestedAccount(deps: Deps, accountId: string): void {
  deps.db.transaction(() => {
    const ids = featuredSuggestionIds(deps);
    if (ids.includes(accountId)) setSetting(deps.db, FEATURED_KEY, ids.filter((id) => id !== accountId));
  });
}

/** Up to `limit` accounts to suggest to `viewerId`, best first, each with its reasons. */
export function suggestAccounts(deps: Deps, viewerId: string, limit: number): SuggestedAccount[] {
  if (limit < 1) return [];
  const at = now();
  const out = new Map<string, SuggestedAccount>();
  const add = (accountId: string, reason: 'past' | 'featured' | 'most_followed') => {
    let entry = out.get(accountId);
    if (!entry) {
      if (out.size >= limit) return;
      entry = { accountId, pastInteractions: false, sources: [] };
      out.set(accountId, entry);
    }
    if (reason === 'past') entry.pastInteractions = true;
    else if (!entry.sources.includes(reason)) entry.sources.push(reason);
  };

  for (const id of eligibleCandidateIds(deps.db, accountHiddenSql, viewerId, at - CANDIDATE_LIFETIME_MS, limit)) add(id, 'past');

  // Cold start: the featured and active accounts name their source also for an account already
  // suggested (Mastodon merges the sources of one account), but only fill free places.
  const featured = featuredSuggestionIds(deps);
  const eligibleFeatured = eligibleAmong(deps.db, accountHiddenSql, viewerId, featured);
  for (const id of featured) if (eligibleFeatured.has(id)) add(id, 'featured');
  for (const id of eligibleActiveLocalIds(deps.db, accountHiddenSql, viewerId, at - ACTIVE_WINDOW_MS, limit)) add(id, 'most_followed');

  return [...out.values()];
}

/** Suggestions as v2 Suggestion entities. */
export function presentSuggestions(deps: Deps, viewerId: string, limit: number): MastodonSuggestion[] {
  const suggested = suggestAccounts(deps, viewerId, limit);
  const views = loadAccountViews(deps, suggested.map((s) => s.accountId));
  const out: MastodonSuggestion[] = [];
  for (const s of suggested) {
    const view = views.get(s.accountId);
    if (view) out.push(toMastodonSuggestion(view, s, deps.uris));
  }
  return out;
}

/** Suggestions as v1 answers them: the accounts alone. */
export function presentSuggestedAccounts(deps: Deps, viewerId: string, limit: number): Account[] {
  return presentAccounts(deps, suggestAccounts(deps, viewerId, limit).map((s) => s.accountId));
}

/**
 * The user dismisses a suggestion: the account is never suggested to them again, from any
 * source. As Mastodon, an id that is not a suggestion (or not an account) is not an error.
 */
export function dismissSuggestion(deps: Deps, viewerId: string, targetAccountId: string): void {
  if (!isId(targetAccountId) || targetAccountId === viewerId) return;
  const at = now();
  deps.db.transaction(() => {
    deleteCandidate(deps.db, viewerId, targetAccountId);
    insertDismissal(deps.db, viewerId, targetAccountId, at);
  });
}
