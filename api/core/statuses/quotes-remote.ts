import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import { upsertMention } from '../../db/repos/mentions.js';
import {
  deleteQuoteOfStatus,
  findQuoteByApprovalUri,
  findQuotePolicies,
  findQuoteOfStatus,
  findQuotesWaitingFor,
  insertQuote,
  setQuotePolicy,
  updateQuote,
  type QuotePolicyFlags,
  type QuoteRow,
} from '../../db/repos/quotes.js';
import { findStatusById, findStatusByUri, type StatusRow } from '../../db/repos/statuses.js';
import { statusUri } from '../../serializers/status.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { mayQuote } from './quote-policy.js';
import { acceptQuote, announceAcceptedQuote, rejectQuote } from './quotes.js';

/**
 * Quote posts, the federated side: what a remote status says about quotes (its own quote, who may
 * quote it), and the approval exchange of FEP-044f as Mastodon 4.5 runs it, in both directions.
 * Federation reads the activities and calls these; they never fetch anything themselves.
 */

/** What a remote Note says about quotes, as federation read it (see `fromApQuoting`). */
export interface RemoteQuotingData {
  /**
   * The status it quotes: its id, whether it was named only the old way (quoteUrl, _misskey_quote,
   * quoteUri: no approval to be had), and the QuoteAuthorization it carries, if any.
   */
  quote: { uri: string; legacy: boolean; approvalUri: string | null } | null;
  /** Who may quote it (`interactionPolicy.canQuote`; none published: nobody but its author). */
  policy: QuotePolicyFlags;
}

/** A status here by its ActivityPub id: a remote one, or one of ours (`…/users/<name>/statuses/<id>`). */
export function statusByAnyUri(deps: Deps, uri: string): StatusRow | undefined {
  const known = findStatusByUri(deps.db, uri);
  if (known) return known;
  const prefix = deps.uris.url('/users/');
  const match = uri.startsWith(prefix) ? /^[^/]+\/statuses\/([0-9]+)$/.exec(uri.slice(prefix.length)) : null;
  const local = match?.[1] ? findStatusById(deps.db, match[1]) : undefined;
  return local && local.local === 1 ? local : undefined;
}

function isOwnUri(deps: Deps, uri: string): boolean {
  return URL.canParse(uri) && new URL(uri).origin === new URL(deps.uris.base).origin;
}

/** The quote row of a remote status, linked to the quoted status when it is known here. */
function remoteQuoteRow(deps: Deps, statusId: string, author: AccountRow, quote: NonNullable<RemoteQuotingData['quote']>, at: number): QuoteRow {
  const found = statusByAnyUri(deps, quote.uri);
  const quoted = found && found.reblog_of_id === null ? found : undefined;
  return {
    id: newId(at),
    status_id: statusId,
    account_id: author.id,
    quoted_status_id: quoted?.id ?? null,
    quoted_account_id: quoted?.account_id ?? null,
    quoted_uri: quote.uri,
    // Quoting oneself needs nobody's approval (FEP-044f).
    state: quoted && quoted.account_id === author.id ? 'accepted' : 'pending',
    legacy: quote.legacy ? 1 : 0,
    // An authorization of ours is never taken from the quote: the approval is recorded here.
    approval_uri: quote.approvalUri && !isOwnUri(deps, quote.approvalUri) ? quote.approvalUri : null,
    activity_uri: null,
    created_at: at,
    updated_at: at,
  };
}

/**
 * Stores what a new remote status says about quotes, inside the transaction that stores it: its
 * quote policy, and its quote (pending until approved; see `needsQuoteWork`).
 */
export function saveRemoteQuoting(deps: Deps, statusId: string, author: AccountRow, data: RemoteQuotingData | null | undefined, at: number): void {
  if (!data) return;
  setQuotePolicy(deps.db, statusId, data.policy);
  if (data.quote) insertQuote(deps.db, remoteQuoteRow(deps, statusId, author, data.quote, at));
}

/**
 * Applies what an edited remote status says about quotes: its policy; a quote edited away goes, a
 * quote of another status starts over (pending); a new authorization for a pending quote is kept
 * to be checked. Emits 'quote.pending' when there is something to fetch or check.
 */
export function updateRemoteQuoting(deps: Deps, status: StatusRow, author: AccountRow, data: RemoteQuotingData | null | undefined): void {
  if (!data || status.account_id !== author.id) return;
  const at = now();
  const before = findQuotePolicies(deps.db, [status.id]).get(status.id) ?? { automatic: 0, manual: 0 };
  const policyChanged = before.automatic !== data.policy.automatic || before.manual !== data.policy.manual;
  const pending = deps.db.transaction((): QuoteRow | null => {
    setQuotePolicy(deps.db, status.id, data.policy);
    const current = findQuoteOfStatus(deps.db, status.id);
    if (!data.quote) {
      if (current) deleteQuoteOfStatus(deps.db, status.id);
      return null;
    }
    if (!current || current.quoted_uri !== data.quote.uri) {
      if (current) deleteQuoteOfStatus(deps.db, status.id);
      const row = remoteQuoteRow(deps, status.id, author, data.quote, at);
      insertQuote(deps.db, row);
      return row.state === 'pending' ? row : null;
    }
    const approval = data.quote.approvalUri && !isOwnUri(deps, data.quote.approvalUri) ? data.quote.approvalUri : null;
    if (current.state !== 'pending' || approval === null || approval === current.approval_uri) return null;
    updateQuote(deps.db, current.id, { approval_uri: approval }, at);
    return current;
  });
  if (policyChanged) deps.events.emit('status.quote_policy_updated', { statusId: status.id, accountId: author.id });
  if (pending) deps.events.emit('quote.pending', { quoteId: pending.id, statusId: status.id });
}

/**
 * What federation still has to do for a remote status's pending quote: fetch the quoted status (not
 * known here yet), or check the authorization it carries. Null when there is nothing to do.
 */
export function needsQuoteWork(deps: Deps, statusId: string): { quote: QuoteRow; fetch: string | null; verify: string | null } | null {
  const quote = findQuoteOfStatus(deps.db, statusId);
  if (!quote || quote.state !== 'pending') return null;
  const author = findAccountById(deps.db, quote.account_id);
  if (!author || author.domain === null) return null;
  const fetch = quote.quoted_status_id === null && quote.quoted_uri && !isOwnUri(deps, quote.quoted_uri) ? quote.quoted_uri : null;
  if (!fetch && !quote.approval_uri) return null;
  return { quote, fetch, verify: quote.approval_uri };
}

/**
 * Links the quotes that named `status` before it was known here; quotes of their own author's
 * status are accepted. Returns the quotes still pending (their authorizations are to be checked).
 */
export function linkWaitingQuotes(deps: Deps, status: StatusRow, uri: string): QuoteRow[] {
  if (status.reblog_of_id !== null) return [];
  const waiting = findQuotesWaitingFor(deps.db, uri);
  if (waiting.length === 0) return [];
  const at = now();
  deps.db.transaction(() => {
    for (const q of waiting) {
      updateQuote(deps.db, q.id, { quoted_status_id: status.id, quoted_account_id: status.account_id, state: q.account_id === status.account_id ? 'accepted' : undefined }, at);
    }
  });
  const linked = waiting.map((q) => findQuoteOfStatus(deps.db, q.status_id)).filter((q): q is QuoteRow => q !== undefined);
  for (const q of linked) announceAcceptedQuote(deps, q);
  return linked.filter((q) => q.state === 'pending');
}

/**
 * Checks a remote quote's authorization (the QuoteAuthorization document as fetched, or null when
 * it is gone) as Mastodon does: issued by the quoted status's author on that author's server,
 * naming this quote as the interacting object and the quoted status as its target. A matching one
 * accepts the quote; a missing one rejects it; one that does not match changes nothing.
 */
export function applyQuoteAuthorization(deps: Deps, quote: QuoteRow, approvalUri: string, doc: Record<string, unknown> | null): QuoteRow {
  const current = findQuoteOfStatus(deps.db, quote.status_id);
  if (!current || current.state !== 'pending' || current.approval_uri !== approvalUri || current.quoted_status_id === null) return current ?? quote;
  if (doc === null) return rejectQuote(deps, current);
  const id = (v: unknown) => (typeof v === 'string' ? v : v !== null && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string' ? (v as { id: string }).id : null);
  const types = Array.isArray(doc.type) ? doc.type : [doc.type];
  const quoting = findStatusById(deps.db, current.status_id);
  const quoted = findStatusById(deps.db, current.quoted_status_id);
  const quotingAuthor = quoting ? findAccountById(deps.db, quoting.account_id) : undefined;
  const quotedAuthor = quoted ? findAccountById(deps.db, quoted.account_id) : undefined;
  if (!quoting || !quoted || !quotingAuthor || !quotedAuthor?.uri) return current;
  const attributedTo = id(doc.attributedTo);
  const matches =
    types.some((t) => t === 'QuoteAuthorization' || t === 'https://w3id.org/fep/044f#QuoteAuthorization') &&
    id(doc.id) === approvalUri &&
    attributedTo === quotedAuthor.uri &&
    new URL(approvalUri).host === new URL(quotedAuthor.uri).host &&
    id(doc.interactingObject) === statusUri(quoting, quotingAuthor, deps.uris) &&
    id(doc.interactionTarget) === statusUri(quoted, quotedAuthor, deps.uris);
  return matches ? acceptQuote(deps, current) : current;
}

/** What came of a QuoteRequest for one of our statuses. */
export type QuoteRequestOutcome = { kind: 'accepted'; quote: QuoteRow } | { kind: 'rejected' } | { kind: 'ignored' };

/**
 * A QuoteRequest from `sender` for a local public or unlisted status (Mastodon ignores others):
 * when the status's policy lets the sender quote it, the quoting status (`instrument`, by the
 * sender, stored already) has its quote accepted and the quoted author is silently mentioned in it
 * (so they can read it); 'quote.accepted' follows. Otherwise the request is rejected (and a quote
 * stored for it, pending, rejected too). Federation answers with Accept or Reject.
 */
export function receiveQuoteRequest(deps: Deps, sender: AccountRow, quoted: StatusRow, instrument: StatusRow | undefined, activityUri: string): QuoteRequestOutcome {
  if (quoted.local !== 1 || (quoted.visibility !== 'public' && quoted.visibility !== 'unlisted')) return { kind: 'ignored' };
  const permission = mayQuote(deps, quoted, sender.id);
  const quote = instrument && instrument.account_id === sender.id ? findQuoteOfStatus(deps.db, instrument.id) : undefined;
  const ours = quote !== undefined && quote.quoted_status_id === quoted.id;
  if (permission !== 'automatic' && permission !== 'manual') {
    if (quote && ours && quote.state === 'pending') rejectQuote(deps, quote);
    return { kind: 'rejected' };
  }
  if (!quote || !ours) return { kind: 'ignored' };
  deps.db.transaction(() => upsertMention(deps.db, { id: newId(), status_id: quote.status_id, account_id: quoted.account_id, silent: 1 }));
  return { kind: 'accepted', quote: acceptQuote(deps, quote, { activityUri }) };
}

/**
 * The Accept of our QuoteRequest by the quoted status's remote author: the quote is accepted with
 * the authorization it names (which must be on the author's server). Returns whether it applied.
 */
export function receiveQuoteAccept(deps: Deps, sender: AccountRow, quote: QuoteRow, approvalUri: string): boolean {
  if (quote.quoted_account_id !== sender.id || quote.state !== 'pending' || !sender.uri) return false;
  if (!URL.canParse(approvalUri) || new URL(approvalUri).host !== new URL(sender.uri).host) return false;
  const quoting = findStatusById(deps.db, quote.status_id);
  if (!quoting || quoting.local !== 1) return false;
  acceptQuote(deps, quote, { approvalUri });
  return true;
}

/** The Reject of our QuoteRequest by the quoted status's author: rejected (revoked if it was accepted). */
export function receiveQuoteReject(deps: Deps, sender: AccountRow, quote: QuoteRow): boolean {
  if (quote.quoted_account_id !== sender.id) return false;
  rejectQuote(deps, quote);
  return true;
}

/** A remote author deleted a QuoteAuthorization it issued: the quote it approved is revoked. */
export function receiveQuoteAuthorizationDelete(deps: Deps, sender: AccountRow, approvalUri: string): boolean {
  const quote = findQuoteByApprovalUri(deps.db, approvalUri, sender.id);
  if (!quote) return false;
  rejectQuote(deps, quote);
  return true;
}
