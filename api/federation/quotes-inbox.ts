import { Note, Question, type Accept, type QuoteRequest, type Reject } from '@fedify/vocab';
import { createRemoteStatus } from '../core/federation/remote-statuses.js';
import {
  receiveQuoteAccept,
  receiveQuoteAuthorizationDelete,
  receiveQuoteReject,
  receiveQuoteRequest,
  statusByAnyUri,
} from '../core/statuses/quotes-remote.js';
import { findAccountById, type AccountRow } from '../db/repos/accounts.js';
import { findQuoteByActivityUri, findQuoteOfStatus, type QuoteRow } from '../db/repos/quotes.js';
import type { StatusRow } from '../db/repos/statuses.js';
import { quoteAuthorizationUri } from '../serializers/quote.js';
import { statusUri } from '../serializers/status.js';
import { storeEmojiTags } from './emoji-tags.js';
import { fromApNote } from './from-ap.js';
import { loaderOptions, localAccountOf, remoteSender, tombstonedForSender, type Ctx } from './inbox.js';
import { recipientOf, send } from './outbound.js';
import { toApQuoteAccept, toApQuoteReject, type QuoteRequestParts } from './quotes-ap.js';
import { receivedActivity } from './received.js';

/**
 * The inbox side of FEP-044f quote approval, as Mastodon 4.5 runs it: QuoteRequests for our
 * statuses (answered with Accept or Reject), the Accept or Reject of our own requests, and the
 * Delete of an authorization (a revoked quote). Listeners call core, as every inbox listener does.
 */

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** The first id in a JSON value that is an id, an object with one, or a list of those. */
function firstId(value: unknown): string | null {
  const v: unknown = Array.isArray(value) ? value[0] : value;
  if (typeof v === 'string') return v;
  const id = record(v)?.id;
  return typeof id === 'string' ? id : null;
}

function sameHost(a: string, b: string): boolean {
  return URL.canParse(a) && URL.canParse(b) && new URL(a).host === new URL(b).host;
}

/**
 * The quoting status a QuoteRequest names (`instrument`): known here already, or stored from the
 * request (Mastodon embeds it) or fetched from the requester's server. Only a status by the
 * requester, on the requester's server, is taken.
 */
async function instrumentOf(ctx: Ctx, request: QuoteRequest, sender: AccountRow): Promise<StatusRow | undefined> {
  const uri = request.instrumentId?.href;
  if (!uri || !sender.uri || !sameHost(uri, sender.uri) || sender.domain === null) return undefined;
  const known = statusByAnyUri(ctx.data, uri);
  if (known) return known;
  const options = await loaderOptions(ctx);
  const object = await request.getInstrument(options).catch(() => null);
  if (!(object instanceof Note || object instanceof Question) || object.id?.href !== uri || object.attributionId?.href !== sender.uri) return undefined;
  const embedded = record(receivedActivity(request.id)?.instrument);
  const raw = embedded?.id === uri ? embedded : ((await options.documentLoader(uri).catch(() => null))?.document ?? null);
  const data = await fromApNote(object, sender.followers_url, raw);
  if (!data) return undefined;
  await storeEmojiTags(ctx.data, object, sender.domain);
  return createRemoteStatus(ctx.data, sender, data, (u) => localAccountOf(ctx, new URL(u))).status;
}

/**
 * QuoteRequest for one of our statuses: Accept (with our QuoteAuthorization as its result) when
 * the status's quote policy lets the requester quote it, Reject when it does not; a request for
 * anything else is ignored, as Mastodon ignores it.
 */
export async function onQuoteRequest(ctx: Ctx, request: QuoteRequest): Promise<void> {
  // A request names the quoted status and the quoting one; without either it asks nothing.
  if (!request.id || !request.objectId || !request.instrumentId || tombstonedForSender(ctx, request, request.id)) return;
  const quoted = statusByAnyUri(ctx.data, request.objectId.href);
  if (!quoted || quoted.local !== 1) return;
  const sender = await remoteSender(ctx, request);
  // The request must come from the requester's own server.
  if (!sender?.uri || !sameHost(request.id.href, sender.uri)) return;
  const quotedAuthor = findAccountById(ctx.data.db, quoted.account_id);
  const recipient = recipientOf(sender);
  if (!quotedAuthor || !recipient) return;
  const instrument = await instrumentOf(ctx, request, sender);
  const outcome = receiveQuoteRequest(ctx.data, sender, quoted, instrument, request.id.href);
  if (outcome.kind === 'ignored') return;
  const me = ctx.data.uris.accountUri(quotedAuthor.username);
  const parts: QuoteRequestParts = { id: request.id.href, actor: sender.uri, object: statusUri(quoted, quotedAuthor, ctx.data.uris), instrument: request.instrumentId.href };
  if (outcome.kind === 'rejected') {
    await send(ctx, quotedAuthor, [recipient], toApQuoteReject(me, parts));
    return;
  }
  const authorization = quoteAuthorizationUri(ctx.data.uris, quotedAuthor.username, outcome.quote.id);
  await send(ctx, quotedAuthor, [recipient], toApQuoteAccept(me, outcome.quote.id, parts, authorization));
}

/**
 * The quote an Accept or Reject answers, when it answers one of our QuoteRequests: named by the
 * request's id (the object, embedded or not), or by the quoting status the embedded request names.
 */
function answeredQuote(ctx: Ctx, activity: Accept | Reject): QuoteRow | undefined {
  const raw = receivedActivity(activity.id);
  const object = raw ? raw.object : activity.objectId?.href;
  const requestId = firstId(object);
  const byId = requestId ? findQuoteByActivityUri(ctx.data.db, requestId) : undefined;
  if (byId) return byId;
  const embedded = record(Array.isArray(object) ? object[0] : object);
  const instrument = embedded && embedded.type === 'QuoteRequest' ? firstId(embedded.instrument) : null;
  const quoting = instrument ? statusByAnyUri(ctx.data, instrument) : undefined;
  return quoting && quoting.local === 1 ? findQuoteOfStatus(ctx.data.db, quoting.id) : undefined;
}

/**
 * An Accept of our QuoteRequest (the quoted author approved our quote, `result` naming the
 * QuoteAuthorization). Returns false when the Accept is not about a quote (a Follow's, say).
 */
export async function onQuoteAccept(ctx: Ctx, accept: Accept): Promise<boolean> {
  const quote = answeredQuote(ctx, accept);
  if (!quote) return false;
  const sender = await remoteSender(ctx, accept);
  const raw = receivedActivity(accept.id);
  const approval = raw ? firstId(raw.result) : (accept.resultId?.href ?? null);
  if (sender && approval) receiveQuoteAccept(ctx.data, sender, quote, approval);
  return true;
}

/** A Reject of our QuoteRequest: the quote is rejected. False when it is not about a quote. */
export async function onQuoteReject(ctx: Ctx, reject: Reject): Promise<boolean> {
  const quote = answeredQuote(ctx, reject);
  if (!quote) return false;
  const sender = await remoteSender(ctx, reject);
  if (sender) receiveQuoteReject(ctx.data, sender, quote);
  return true;
}

/**
 * A Delete of a QuoteAuthorization by the author who issued it: the quote it approved is revoked.
 * Returns whether it named one.
 */
export function onQuoteAuthorizationDelete(ctx: Ctx, sender: AccountRow, uri: string): boolean {
  return receiveQuoteAuthorizationDelete(ctx.data, sender, uri);
}
