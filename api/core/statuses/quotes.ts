import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import { upsertMention } from '../../db/repos/mentions.js';
import { findQuoteById, findQuoteOfStatus, insertQuote, updateQuote, type QuoteRow } from '../../db/repos/quotes.js';
import { findStatusById, type StatusRow, type Visibility } from '../../db/repos/statuses.js';
import { quoteAuthorizationUri, quoteRequestUri } from '../../serializers/quote.js';
import { statusUri, statusUrl } from '../../serializers/status.js';
import { now } from '../../util/clock.js';
import { ApiError } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import { escapeHtml, linkHtml } from '../../util/text/index.js';
import type { Deps } from '../deps.js';
import type { EventMap } from '../events.js';
import { mayQuote, type QuotePermission } from './quote-policy.js';
import { processStatusText } from './text.js';

/**
 * Quote posts, the local side: a new status quoting another (checked, written with its quote),
 * and the changes of a quote's state that both the REST API and federation make.
 */

/** Mastodon's answer when the quoted status is missing, invisible, or may not be quoted. */
export const QUOTED_STATUS_NOT_FOUND = 'The post you are trying to quote does not appear to exist.';

/** The status a new status quotes, with its author and what its policy grants the quoting author. */
export interface QuoteTarget {
  status: StatusRow;
  author: AccountRow;
  permission: QuotePermission;
}

/**
 * The status `quoted_status_id` names, if the author may quote it: it exists, is no reblog, the
 * author can see it and its policy lets them in (automatically or after review). Anything else is
 * Mastodon's 404 "The post you are trying to quote does not appear to exist."
 */
export function resolveQuoteTarget(deps: Deps, author: AccountRow, quotedStatusId: string): QuoteTarget {
  const status = findStatusById(deps.db, quotedStatusId);
  const quotedAuthor = status ? findAccountById(deps.db, status.account_id) : undefined;
  const permission = status ? mayQuote(deps, status, author.id) : 'denied';
  if (!status || !quotedAuthor || (permission !== 'automatic' && permission !== 'manual')) throw new ApiError(404, QUOTED_STATUS_NOT_FOUND);
  return { status, author: quotedAuthor, permission };
}

/**
 * The visibility of a quote: quoting a followers-only status makes a public or unlisted quote
 * followers-only too (a direct one stays direct).
 */
export function quoteVisibility(target: QuoteTarget, visibility: Visibility): Visibility {
  return target.status.visibility === 'private' && (visibility === 'public' || visibility === 'unlisted') ? 'private' : visibility;
}

/**
 * A direct quote must mention the quoted author in its text (unless it quotes its own author), or
 * the quoted author would be handed a private conversation they were not part of: 422.
 */
export function checkDirectQuote(deps: Deps, target: QuoteTarget, author: AccountRow, text: string, visibility: Visibility): void {
  if (visibility !== 'direct' || target.author.id === author.id) return;
  if (processStatusText(deps, text).mentioned.some((a) => a.id === target.author.id)) return;
  throw new ApiError(422, 'Validation failed: Cannot quote a non-mentioned user in a Private Mention post.');
}

/**
 * The paragraph Mastodon puts before the text of a quote for software that does not show quotes
 * (`<p class="quote-inline">RE: <a …>…</a></p>`), or '' when the text links the quoted status
 * already. `quoted` is the quoted status with its author, or only its URI once it is gone.
 */
export function quoteInlineHtml(deps: Deps, quoted: { status: StatusRow; author: AccountRow } | { uri: string }, text: string): string {
  const uri = 'uri' in quoted ? quoted.uri : statusUri(quoted.status, quoted.author, deps.uris);
  const url = 'uri' in quoted ? quoted.uri : (statusUrl(quoted.status, quoted.author, deps.uris) ?? uri);
  if (text.includes(url) || text.includes(uri)) return '';
  return `<p class="quote-inline">RE: ${URL.canParse(url) ? linkHtml(url) : escapeHtml(url)}</p>`;
}

/** The quote-inline paragraph of a status that quotes something, for its text (an edit renders it again). */
export function quoteInlineOf(deps: Deps, statusId: string, text: string): string {
  const quote = findQuoteOfStatus(deps.db, statusId);
  if (!quote) return '';
  const quoted = quote.quoted_status_id === null ? undefined : findStatusById(deps.db, quote.quoted_status_id);
  const author = quoted ? findAccountById(deps.db, quoted.account_id) : undefined;
  if (quoted && author) return quoteInlineHtml(deps, { status: quoted, author }, text);
  return quote.quoted_uri ? quoteInlineHtml(deps, { uri: quote.quoted_uri }, text) : '';
}

/**
 * Writes the quote of a new local status, inside the caller's transaction: accepted at once when
 * a local status's policy approves it automatically (always for one's own), pending otherwise
 * (a remote author is asked with a QuoteRequest, whose id it gets now). The quoted author is
 * silently mentioned, so that they can see the quote (Mastodon's `ensure_quoted_access`).
 */
export function attachQuote(deps: Deps, statusId: string, author: AccountRow, target: QuoteTarget, at: number): QuoteRow {
  const id = newId(at);
  const remote = target.author.domain !== null;
  const row: QuoteRow = {
    id,
    status_id: statusId,
    account_id: author.id,
    quoted_status_id: target.status.id,
    quoted_account_id: target.author.id,
    quoted_uri: statusUri(target.status, target.author, deps.uris),
    state: !remote && target.permission === 'automatic' ? 'accepted' : 'pending',
    legacy: 0,
    approval_uri: null,
    activity_uri: remote ? quoteRequestUri(deps.uris, author.username, id) : null,
    created_at: at,
    updated_at: at,
  };
  insertQuote(deps.db, row);
  if (target.author.id !== author.id) upsertMention(deps.db, { id: newId(at), status_id: statusId, account_id: target.author.id, silent: 1 });
  return row;
}

/** The 'quote.accepted' payload of an accepted quote (null while it is not accepted or names nothing). */
function acceptedPayload(quote: QuoteRow): EventMap['quote.accepted'] | null {
  if (quote.state !== 'accepted' || quote.quoted_status_id === null || quote.quoted_account_id === null) return null;
  return { quoteId: quote.id, statusId: quote.status_id, accountId: quote.account_id, quotedStatusId: quote.quoted_status_id, quotedAccountId: quote.quoted_account_id };
}

/** Emits 'quote.accepted' for a quote written accepted (call after the commit that wrote it). */
export function announceAcceptedQuote(deps: Deps, quote: QuoteRow): void {
  const payload = acceptedPayload(quote);
  if (payload) deps.events.emit('quote.accepted', payload);
}

/**
 * Accepts a pending quote (the quoted author's approval came, or it needs none), recording the
 * authorization and request ids that came with it. Emits 'quote.accepted'. Returns the quote as
 * it is now.
 */
export function acceptQuote(deps: Deps, quote: QuoteRow, ids: { approvalUri?: string | null; activityUri?: string | null } = {}): QuoteRow {
  if (quote.state === 'accepted') return quote;
  deps.db.transaction(() => updateQuote(deps.db, quote.id, { state: 'accepted', approval_uri: ids.approvalUri ?? undefined, activity_uri: ids.activityUri ?? undefined }, now()));
  const updated = findQuoteById(deps.db, quote.id) ?? quote;
  announceAcceptedQuote(deps, updated);
  return updated;
}

/**
 * The quoted author says no (Mastodon's Quote#reject!): an accepted quote becomes revoked (its
 * authorization withdrawn; 'quote.revoked' is emitted with the authorization's id), a pending one
 * rejected; a quote rejected or revoked already stays as it is.
 */
export function rejectQuote(deps: Deps, quote: QuoteRow): QuoteRow {
  if (quote.state === 'rejected' || quote.state === 'revoked') return quote;
  const wasAccepted = quote.state === 'accepted';
  const approvalUri = wasAccepted ? authorizationOf(deps, quote) : null;
  deps.db.transaction(() =>
    updateQuote(deps.db, quote.id, wasAccepted ? { state: 'revoked', approval_uri: null } : { state: 'rejected' }, now()),
  );
  if (wasAccepted) {
    deps.events.emit('quote.revoked', {
      quoteId: quote.id,
      statusId: quote.status_id,
      accountId: quote.account_id,
      quotedStatusId: quote.quoted_status_id,
      quotedAccountId: quote.quoted_account_id,
      approvalUri,
    });
  }
  return findQuoteById(deps.db, quote.id) ?? quote;
}

/**
 * The id of the authorization behind an accepted quote: the one a remote quoted author issued, or
 * ours (`<actor>/quote_authorizations/<id>`) when the quoted author is local. Null otherwise.
 */
export function authorizationOf(deps: Deps, quote: QuoteRow): string | null {
  if (quote.state !== 'accepted' || quote.quoted_account_id === null) return null;
  const quotedAuthor = findAccountById(deps.db, quote.quoted_account_id);
  if (!quotedAuthor) return null;
  // A quote of one's own status needs no authorization.
  if (quote.account_id === quote.quoted_account_id) return null;
  return quotedAuthor.domain === null ? quoteAuthorizationUri(deps.uris, quotedAuthor.username, quote.id) : quote.approval_uri;
}
