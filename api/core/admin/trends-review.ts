import { cardVerdicts, providersByDomains, statusVerdicts, tagReviews, type ProviderRow, type Verdict } from '../../db/repos/trends-review.js';
import type { Deps } from '../deps.js';

/**
 * Which trending items the public may see, after staff review (Mastodon's `trendable` flags):
 * an approved item trends, a rejected one never does, and one nobody reviewed trends by default
 * (Mastodon's "allow trends without prior review" setting, on here: a personal instance's owner
 * reviews after the fact, if at all; the admin lists show what is unreviewed). A link card nobody
 * reviewed follows its publisher's verdict, as Mastodon's does.
 */
export const TRENDABLE_BY_DEFAULT = true;

/** An item's verdict applied: approved or rejected, else the default. */
export function allowedBy(verdict: Verdict): boolean {
  return verdict === null ? TRENDABLE_BY_DEFAULT : verdict === 1;
}

/** The publisher of a link: its host, lower-case, without `www.` (null for an unreadable URL). */
export function linkPublisher(url: string): string | null {
  try {
    const host = new URL(url).hostname.toLowerCase();
    return host === '' ? null : host.replace(/^www\./, '');
  } catch {
    return null;
  }
}

/** A link card's review: whether it may trend, and whether staff have yet to look at it. */
export interface LinkReview {
  trendable: boolean;
  requiresReview: boolean;
  publisher: ProviderRow | null;
}

/** The reviews of link cards by id, with their publishers' verdicts (unknown ids left out). */
export function linkReviews(deps: Deps, cardIds: readonly string[]): Map<string, LinkReview> {
  const cards = cardVerdicts(deps.db, cardIds);
  const domains = [...cards.values()].flatMap((c) => linkPublisher(c.url) ?? []);
  const providers = providersByDomains(deps.db, domains);
  const out = new Map<string, LinkReview>();
  for (const [id, card] of cards) {
    const domain = linkPublisher(card.url);
    const publisher = (domain && providers.get(domain)) || null;
    // The card's own verdict wins; without one, the publisher's; without either, the default.
    const verdict = card.trendable ?? publisher?.trendable ?? null;
    out.set(id, { trendable: allowedBy(verdict), requiresReview: verdict === null, publisher });
  }
  return out;
}

/** The tag ids among `ids` that may trend publicly. */
export function allowedTagIds(deps: Deps, ids: readonly string[]): Set<string> {
  const reviews = tagReviews(deps.db, ids);
  return new Set(ids.filter((id) => {
    const review = reviews.get(id);
    return review !== undefined && allowedBy(review.trendable);
  }));
}

/** The status ids among `ids` that may trend publicly. */
export function allowedStatusIds(deps: Deps, ids: readonly string[]): Set<string> {
  const verdicts = statusVerdicts(deps.db, ids);
  return new Set(ids.filter((id) => verdicts.has(id) && allowedBy(verdicts.get(id) ?? null)));
}

/** The link card ids among `ids` that may trend publicly. */
export function allowedCardIds(deps: Deps, ids: readonly string[]): Set<string> {
  const reviews = linkReviews(deps, ids);
  return new Set(ids.filter((id) => reviews.get(id)?.trendable === true));
}
