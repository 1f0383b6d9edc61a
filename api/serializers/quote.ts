import type { Uris } from '../util/uris.js';

/**
 * The Quote, ShallowQuote and QuoteApproval entities (Mastodon 4.5) and the ActivityPub ids of a
 * local quote's request and authorization. Core decides every viewer-dependent value (the state,
 * whether the quoted status may be shown); these functions only shape it.
 */

/** A quote's state as the API shows it to one viewer (Quote.state). */
export type MastodonQuoteState =
  | 'pending'
  | 'accepted'
  | 'rejected'
  | 'revoked'
  | 'deleted'
  | 'unauthorized'
  | 'blocked_account'
  | 'blocked_domain'
  | 'muted_account';

/** The Quote entity: the state and, when it may be shown, the quoted status (T: the Status entity). */
export interface MastodonQuote<T> {
  state: MastodonQuoteState;
  quoted_status: T | null;
}

/** The ShallowQuote entity: a quote inside a quoted status (one level deep only). */
export interface MastodonShallowQuote {
  state: MastodonQuoteState;
  quoted_status_id: string | null;
}

/** The QuoteApproval entity: who may quote a status, and what that means for the viewer. */
export interface MastodonQuoteApproval {
  automatic: string[];
  manual: string[];
  current_user: 'automatic' | 'manual' | 'denied' | 'unknown';
}

/** The quote of a status as loaded for one viewer (see core/statuses/quote-views.ts). */
export interface QuoteView<V> {
  state: MastodonQuoteState;
  /** The quoted status's id, when the viewer may be given it (else null). */
  quotedStatusId: string | null;
  /** The quoted status's view, for a full Quote; null for a shallow one or when it is not shown. */
  quoted: V | null;
  /** A quote inside a quoted status: rendered as a ShallowQuote. */
  shallow: boolean;
}

/** The Quote or ShallowQuote entity of a loaded quote; `render` makes the quoted Status. */
export function toMastodonQuote<V, T>(view: QuoteView<V>, render: (quoted: V) => T): MastodonQuote<T> | MastodonShallowQuote {
  if (view.shallow) return { state: view.state, quoted_status_id: view.quotedStatusId };
  return { state: view.state, quoted_status: view.quoted ? render(view.quoted) : null };
}

/** The ActivityPub id of the QuoteAuthorization a local account issued for a quote of its status. */
export function quoteAuthorizationUri(uris: Uris, username: string, quoteId: string): string {
  return `${uris.accountUri(username)}/quote_authorizations/${quoteId}`;
}

/** The ActivityPub id of the QuoteRequest a local account sends for its quote of a remote status. */
export function quoteRequestUri(uris: Uris, username: string, quoteId: string): string {
  return `${uris.accountUri(username)}/quote_requests/${quoteId}`;
}
