import {
  findQuoteStats,
  findQuotesByStatusIds,
  followsAround,
  quotedAuthorFilters,
  type QuotePolicyFlags,
  type QuoteRow,
} from '../../db/repos/quotes.js';
import { findStatusesByIds, type StatusRow } from '../../db/repos/statuses.js';
import type { MastodonQuoteApproval, MastodonQuoteState } from '../../serializers/quote.js';
import type { Deps } from '../deps.js';
import { approvalKeys, NOBODY, QUOTE_FLAGS, quotePermission } from './quote-policy.js';
import { visibleStatusIds } from './visibility.js';

/**
 * What the Status entities of a batch need about quotes, for one viewer, in a fixed number of
 * queries: each status's quote and the statuses quoted (one level down: a quoted status shows its
 * own quote only as a ShallowQuote), the state each quote has for the viewer, how often each
 * status is quoted, and its quote policy as it applies to the viewer.
 */
export interface QuotingData {
  /** Quoted statuses that were not in the batch (to be loaded with it). */
  nested: Map<string, StatusRow>;
  /** The quote a status makes as the viewer sees it, or null (none, or one that is not shown). */
  quoteOf(status: StatusRow): ShownQuote | null;
  /** How many accepted quotes a status has. */
  quotesCount(statusId: string): number;
  /** A status's quote policy flags. */
  policyOf(statusId: string): QuotePolicyFlags;
  /** The QuoteApproval entity of a status for the viewer. */
  approval(status: StatusRow): MastodonQuoteApproval;
}

/** A quote as the viewer is shown it. */
export interface ShownQuote {
  state: MastodonQuoteState;
  /** The quoted status, when the viewer may be given it. */
  quotedStatusId: string | null;
}

const DENIED: MastodonQuoteApproval = Object.freeze({ automatic: [], manual: [], current_user: 'denied' }) as MastodonQuoteApproval;

/**
 * Loads the quote data of `rows` (the batch, reblogged statuses included) for `viewerId`. With
 * `source` (the answer to a deletion, for redrafting), quoted statuses are given whatever the
 * quote's state, as Mastodon 4.5.7 does.
 */
export function loadQuoting(deps: Deps, rows: ReadonlyMap<string, StatusRow>, viewerId: string | null, source: boolean): QuotingData {
  const db = deps.db;
  const quotes = findQuotesByStatusIds(db, [...rows.keys()]);
  const nestedIds = [...quotes.values()].map((q) => q.quoted_status_id).filter((id): id is string => id !== null && !rows.has(id));
  const nested = nestedIds.length > 0 ? findStatusesByIds(db, nestedIds) : new Map<string, StatusRow>();
  for (const [id, quote] of findQuotesByStatusIds(db, [...nested.keys()])) quotes.set(id, quote);
  const all = new Map<string, StatusRow>([...rows, ...nested]);

  const quotedIds = [...new Set([...quotes.values()].map((q) => q.quoted_status_id).filter((id): id is string => id !== null))];
  const visible = visibleStatusIds(deps, quotedIds, viewerId);
  const filters = viewerId === null ? new Map<string, never>() : quotedAuthorFilters(db, viewerId, quotedIds);
  const stats = findQuoteStats(db, [...all.keys()]);
  const policyOf = (statusId: string) => stats.get(statusId)?.policy ?? NOBODY;
  // Who follows whom matters only for statuses whose policy names followers or followed accounts.
  const relational = QUOTE_FLAGS.followers | QUOTE_FLAGS.following;
  const related = [...stats].filter(([, s]) => ((s.policy.automatic | s.policy.manual) & relational) !== 0).map(([id]) => all.get(id)?.account_id);
  const authors = related.filter((id): id is string => id !== undefined);
  const follows = viewerId !== null && authors.length > 0 ? followsAround(db, viewerId, authors) : { following: new Set<string>(), followedBy: new Set<string>() };

  const ownedByViewer = (quotedId: string) => viewerId !== null && (filters.get(quotedId)?.account_id ?? all.get(quotedId)?.account_id) === viewerId;
  const stateOf = (quote: QuoteRow): MastodonQuoteState => {
    if (quote.state !== 'accepted') return quote.state;
    const quotedId = quote.quoted_status_id;
    if (quotedId === null) return 'deleted';
    const filter = filters.get(quotedId);
    if (ownedByViewer(quotedId)) return 'accepted';
    if (!visible.has(quotedId)) return 'unauthorized';
    if (filter?.domain_blocked) return 'blocked_domain';
    if (filter?.blocked) return 'blocked_account';
    if (filter?.muted) return 'muted_account';
    return 'accepted';
  };

  return {
    nested,
    quoteOf(status) {
      const quote = quotes.get(status.id);
      // A quote named only the old way (quoteUrl, _misskey_quote) is shown once it is approved;
      // until then its text carries the link (Mastodon's Quote#acceptable?).
      if (!quote || (quote.legacy === 1 && quote.state !== 'accepted')) return null;
      const state = stateOf(quote);
      const quotedId = quote.quoted_status_id;
      const shown = state === 'accepted' || state === 'blocked_account' || state === 'blocked_domain' || state === 'muted_account';
      // A deleted status's answer names what it quoted, whatever the quote's state, if the viewer may see it.
      const given = shown || (source && quotedId !== null && (visible.has(quotedId) || ownedByViewer(quotedId)));
      return { state, quotedStatusId: given ? quotedId : null };
    },
    quotesCount: (statusId) => stats.get(statusId)?.quotes ?? 0,
    policyOf,
    approval(status) {
      if (status.reblog_of_id !== null) return DENIED;
      const flags = policyOf(status.id);
      const relation = { followsAuthor: follows.following.has(status.account_id), followedByAuthor: follows.followedBy.has(status.account_id) };
      return {
        automatic: approvalKeys(flags.automatic),
        manual: approvalKeys(flags.manual),
        current_user: quotePermission(status, flags, viewerId, relation),
      };
    },
  };
}
