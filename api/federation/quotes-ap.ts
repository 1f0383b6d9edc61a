import { Accept, Delete, Note, PUBLIC_COLLECTION, Question, QuoteAuthorization, QuoteRequest, Reject } from '@fedify/vocab';

/**
 * The activities and objects of FEP-044f quote approval (`toAp…`: rows → ActivityPub), shaped as
 * Mastodon 4.5 sends them. Pure: every id comes in as an argument.
 */

/** The ids a QuoteRequest names. */
export interface QuoteRequestParts {
  /** The request's own id. */
  id: string;
  /** The quoting account (the requester). */
  actor: string;
  /** The quoted status. */
  object: string;
  /** The quoting status: embedded when we send it (so the quoted author need not fetch it), else its id. */
  instrument: Note | Question | string;
  /** Whom it is addressed to: the quoted author (when we send it). */
  to?: string | null;
}

/** A QuoteRequest: asks the quoted status's author to approve a quote of it. */
export function toApQuoteRequest(parts: QuoteRequestParts): QuoteRequest {
  return new QuoteRequest({
    id: new URL(parts.id),
    actor: new URL(parts.actor),
    object: new URL(parts.object),
    instrument: typeof parts.instrument === 'string' ? new URL(parts.instrument) : parts.instrument,
    to: parts.to ? new URL(parts.to) : null,
  });
}

/**
 * The Accept of a QuoteRequest by the quoted author (`<actor>#accepts/quote_requests/<quote id>`),
 * embedding the request and naming the QuoteAuthorization as its `result`.
 */
export function toApQuoteAccept(quotedActor: string, quoteId: string, request: QuoteRequestParts, authorization: string): Accept {
  return new Accept({
    id: new URL(`${quotedActor}#accepts/quote_requests/${quoteId}`),
    actor: new URL(quotedActor),
    to: new URL(request.actor),
    object: toApQuoteRequest(request),
    result: new URL(authorization),
  });
}

/** The Reject of a QuoteRequest by the quoted author, embedding the request. */
export function toApQuoteReject(quotedActor: string, request: QuoteRequestParts): Reject {
  return new Reject({
    id: new URL(`${quotedActor}#rejects/quote_requests/${encodeURIComponent(request.id)}`),
    actor: new URL(quotedActor),
    to: new URL(request.actor),
    object: toApQuoteRequest(request),
  });
}

/** The QuoteAuthorization a quoted author issued: dereferenceable, so that anyone can check a quote. */
export function toApQuoteAuthorization(id: string, quotedActor: string, quotingStatus: string, quotedStatus: string): QuoteAuthorization {
  return new QuoteAuthorization({
    id: new URL(id),
    attribution: new URL(quotedActor),
    interactingObject: new URL(quotingStatus),
    interactionTarget: new URL(quotedStatus),
  });
}

/** The Delete of a QuoteAuthorization: the quoted author revokes the quote (`<authorization>#delete`). */
export function toApQuoteAuthorizationDelete(authorization: string, quotedActor: string): Delete {
  return new Delete({
    id: new URL(`${authorization}#delete`),
    actor: new URL(quotedActor),
    object: new URL(authorization),
    to: PUBLIC_COLLECTION,
  });
}
