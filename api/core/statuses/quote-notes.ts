import { findAccountsByIds } from '../../db/repos/accounts.js';
import { findMentionsByStatusIds } from '../../db/repos/mentions.js';
import { findQuotePolicies, findQuoteById, findQuotesByStatusIds, type QuotePolicyFlags } from '../../db/repos/quotes.js';
import { findStatusesByIds, type StatusRow } from '../../db/repos/statuses.js';
import { quoteAuthorizationUri } from '../../serializers/quote.js';
import { statusUri } from '../../serializers/status.js';
import type { Deps } from '../deps.js';

/** The quote of a local status as its Note publishes it. */
export interface NoteQuote {
  /** The quoted status's id; null once it is gone (published as a Tombstone, as Mastodon does). */
  quotedUri: string | null;
  /** The QuoteAuthorization that approved it (accepted quotes of someone else's status). */
  authorization: string | null;
  /** The quoted author when only silently mentioned: left out of the Note's tags and addressing. */
  silentAccountId: string | null;
}

/** What the Notes of a batch of local statuses say about quotes. */
export interface NoteQuoting {
  quotes: Map<string, NoteQuote>;
  policies: Map<string, QuotePolicyFlags>;
}

/**
 * Loads what the Notes of a batch of statuses need about quotes (their quotes, with the quoted
 * statuses' ids and authorizations, and their quote policies), in a few queries.
 */
export function loadNoteQuoting(deps: Deps, statuses: readonly StatusRow[]): NoteQuoting {
  const ids = statuses.map((s) => s.id);
  const quotes = findQuotesByStatusIds(deps.db, ids);
  const out: NoteQuoting = { quotes: new Map(), policies: findQuotePolicies(deps.db, ids) };
  if (quotes.size === 0) return out;
  const quoted = findStatusesByIds(
    deps.db,
    [...quotes.values()].map((q) => q.quoted_status_id).filter((id): id is string => id !== null),
  );
  const authors = findAccountsByIds(deps.db, [...quoted.values()].map((s) => s.account_id));
  const silent = new Set(findMentionsByStatusIds(deps.db, [...quotes.keys()]).filter((m) => m.silent === 1).map((m) => `${m.status_id}:${m.account_id}`));
  for (const [statusId, quote] of quotes) {
    const target = quote.quoted_status_id === null ? undefined : quoted.get(quote.quoted_status_id);
    const author = target ? authors.get(target.account_id) : undefined;
    const quotedUri = target && author ? statusUri(target, author, deps.uris) : quote.quoted_status_id === null && quote.state !== 'accepted' ? quote.quoted_uri : null;
    const silentId = quote.quoted_account_id !== null && silent.has(`${statusId}:${quote.quoted_account_id}`) ? quote.quoted_account_id : null;
    // Accepted quotes of someone else's status carry the authorization: ours for a local quoted author.
    const authorized = quote.state === 'accepted' && author !== undefined && author.id !== quote.account_id;
    const authorization = !authorized ? null : author.domain === null ? quoteAuthorizationUri(deps.uris, author.username, quote.id) : quote.approval_uri;
    out.quotes.set(statusId, { quotedUri, authorization, silentAccountId: silentId });
  }
  return out;
}

/** What a QuoteAuthorization of ours says: who issued it, for which quote of which status. */
export interface IssuedAuthorization {
  quotedActor: string;
  quotingStatus: string;
  quotedStatus: string;
}

/**
 * The QuoteAuthorization a local account issued for quote `quoteId` (served at
 * `<actor>/quote_authorizations/<id>`), while the quote stands accepted; null otherwise (a revoked
 * authorization is gone, which is how others learn of it).
 */
export function issuedAuthorization(deps: Deps, username: string, quoteId: string): IssuedAuthorization | null {
  const quote = /^[0-9]{1,19}$/.test(quoteId) ? findQuoteById(deps.db, quoteId) : undefined;
  if (!quote || quote.state !== 'accepted' || quote.quoted_status_id === null || quote.quoted_account_id === quote.account_id) return null;
  const statuses = findStatusesByIds(deps.db, [quote.status_id, quote.quoted_status_id]);
  const quoting = statuses.get(quote.status_id);
  const quoted = statuses.get(quote.quoted_status_id);
  const accounts = findAccountsByIds(deps.db, [quote.account_id, quote.quoted_account_id ?? '0']);
  const quoter = accounts.get(quote.account_id);
  const quotedAuthor = quote.quoted_account_id === null ? undefined : accounts.get(quote.quoted_account_id);
  if (!quoting || !quoted || !quoter || !quotedAuthor || quotedAuthor.domain !== null || quotedAuthor.username !== username) return null;
  return {
    quotedActor: deps.uris.accountUri(quotedAuthor.username),
    quotingStatus: statusUri(quoting, quoter, deps.uris),
    quotedStatus: statusUri(quoted, quotedAuthor, deps.uris),
  };
}
