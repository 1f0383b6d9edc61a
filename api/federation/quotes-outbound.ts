import type { Federation } from '@fedify/fedify';
import { QuoteAuthorization, Update } from '@fedify/vocab';
import type { Deps } from '../core/deps.js';
import { accountById, loadNoteContext, statusById } from '../core/federation/local.js';
import { issuedAuthorization } from '../core/statuses/quote-notes.js';
import { applyQuoteAuthorization, linkWaitingQuotes, needsQuoteWork, statusByAnyUri } from '../core/statuses/quotes-remote.js';
import type { AccountRow } from '../db/repos/accounts.js';
import { findQuoteOfStatus, type QuoteRow } from '../db/repos/quotes.js';
import type { StatusRow } from '../db/repos/statuses.js';
import { nextTurn } from '../util/background-lane.js';
import { now } from '../util/clock.js';
import { INSTANCE_ACTOR_IDENTIFIER } from '../util/uris.js';
import { loadFollowerRecipients, recipientOf, send, trackSend } from './outbound.js';
import { toApQuoteAuthorization, toApQuoteAuthorizationDelete, toApQuoteRequest } from './quotes-ap.js';
import { resolveRemote } from './resolve.js';
import { actorUri, toApStatusObject } from './to-ap.js';

/**
 * Serves the QuoteAuthorizations our accounts issue (`/users/{identifier}/quote_authorizations/{id}`),
 * so that any server can check a quote of their statuses; a revoked one answers 404.
 */
export function registerQuoteDispatchers(federation: Federation<Deps>): void {
  federation.setObjectDispatcher(QuoteAuthorization, '/users/{identifier}/quote_authorizations/{id}', (ctx, values) => {
    const issued = issuedAuthorization(ctx.data, values.identifier, values.id);
    if (!issued) return null;
    return toApQuoteAuthorization(ctx.getObjectUri(QuoteAuthorization, values).href, issued.quotedActor, issued.quotingStatus, issued.quotedStatus);
  });
}

/**
 * Quote posts over ActivityPub, driven by core events (FEP-044f as Mastodon 4.5 runs it):
 * - a local quote of a remote status sends a QuoteRequest (embedding the quote) to the quoted author;
 *   once accepted, the quote goes out again (Update) with its authorization;
 * - a local author revoking a quote deletes its QuoteAuthorization, for the quoting author and
 *   both authors' followers;
 * - a new quote policy goes out as an Update;
 * - a remote quote of a status not known here gets that status fetched, and the authorization it
 *   carries checked (fetched from its issuer).
 * Returns the stop function (it waits for the work in hand).
 */
export function installQuoteFederation(deps: Deps, federation: Federation<Deps>): () => Promise<void> {
  const ctx = () => federation.createContext(new URL(deps.uris.base), deps);
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  const run = (what: string, job: () => Promise<void>) => {
    if (stopped) return;
    const started = (async () => {
      await nextTurn();
      await job();
    })().catch((err: unknown) => console.error(`federation: ${what} failed`, err));
    inFlight.add(started);
    void trackSend(deps, started).finally(() => inFlight.delete(started));
  };
  const local = (id: string | null) => {
    const a = id === null ? undefined : accountById(deps, id);
    return a && a.domain === null ? a : undefined;
  };
  const remote = (id: string | null) => {
    const a = id === null ? undefined : accountById(deps, id);
    return a && a.domain !== null ? a : undefined;
  };

  /** A local status sent again (Update) to its followers and the accounts it names. */
  const sendUpdate = async (status: StatusRow, author: AccountRow) => {
    const context = loadNoteContext(deps, [status]);
    const note = toApStatusObject(status, author, context, deps.uris, now());
    const recipients = status.visibility === 'direct' ? [] : await loadFollowerRecipients(deps, author.id);
    for (const a of context.mentions.get(status.id) ?? []) {
      const r = a.domain !== null ? recipientOf(a) : null;
      if (r) recipients.push(r);
    }
    const update = new Update({ id: new URL(`${note.id?.href ?? ''}#updates/${now()}`), actor: note.attributionId, object: note, tos: note.toIds, ccs: note.ccIds });
    await send(ctx(), author, recipients, update);
  };

  /** Fetches the status a remote quote names, then checks the quote's authorization. */
  const resolve = async (statusId: string) => {
    const first = needsQuoteWork(deps, statusId);
    if (!first) return;
    if (first.fetch) {
      await resolveRemote(federation, deps, first.fetch);
      const quoted = statusByAnyUri(deps, first.fetch);
      if (quoted) linkWaitingQuotes(deps, quoted, first.fetch);
    }
    const work = needsQuoteWork(deps, statusId);
    if (work?.verify && work.quote.quoted_status_id !== null) await verify(work.quote, work.verify);
  };

  /** Fetches a quote's authorization from its issuer and checks it (see applyQuoteAuthorization). */
  const verify = async (quote: QuoteRow, approvalUri: string) => {
    const loader = await ctx().getDocumentLoader({ identifier: INSTANCE_ACTOR_IDENTIFIER });
    let doc: Record<string, unknown> | null;
    try {
      const fetched = (await loader(approvalUri)).document;
      doc = fetched !== null && typeof fetched === 'object' && !Array.isArray(fetched) ? (fetched as Record<string, unknown>) : {};
    } catch (err) {
      // Gone (404, 410): the authorization was withdrawn. Anything else (its server down, say)
      // leaves the quote pending, as Mastodon does.
      const status = (err as { response?: Response }).response?.status;
      if (status !== 404 && status !== 410) throw err;
      doc = null;
    }
    applyQuoteAuthorization(deps, quote, approvalUri, doc);
  };

  const offs = [
    deps.events.on('status.created', ({ statusId, accountId }) => {
      const status = statusById(deps, statusId);
      if (!status || status.reblog_of_id !== null) return;
      const author = local(accountId);
      if (!author) {
        // A remote status: quotes waiting for it are linked (and checked); its own quote is resolved.
        const pending = status.uri ? linkWaitingQuotes(deps, status, status.uri) : [];
        for (const q of pending) {
          const approval = q.approval_uri;
          if (approval) run('checking a quote', () => verify(q, approval));
        }
        if (needsQuoteWork(deps, status.id)) run('resolving a quote', () => resolve(status.id));
        return;
      }
      const quote = findQuoteOfStatus(deps.db, status.id);
      const quotedAuthor = quote ? remote(quote.quoted_account_id) : undefined;
      const r = quotedAuthor ? recipientOf(quotedAuthor) : null;
      if (!quote || quote.state !== 'pending' || !quote.activity_uri || !quote.quoted_uri || !quotedAuthor?.uri || !r) return;
      const activityUri = quote.activity_uri;
      const quotedUri = quote.quoted_uri;
      const quotedActor = quotedAuthor.uri;
      run('QuoteRequest', async () => {
        const note = toApStatusObject(status, author, loadNoteContext(deps, [status]), deps.uris, now());
        const request = toApQuoteRequest({ id: activityUri, actor: actorUri(author, deps.uris), object: quotedUri, instrument: note, to: quotedActor });
        await send(ctx(), author, [r], request);
      });
    }),
    deps.events.on('quote.pending', ({ statusId }) => run('resolving a quote', () => resolve(statusId))),
    deps.events.on('quote.accepted', ({ statusId, accountId, quotedAccountId }) => {
      // Our quote of a remote status was approved: it goes out again, with its authorization.
      const author = local(accountId);
      const status = statusById(deps, statusId);
      if (!author || !status || !remote(quotedAccountId)) return;
      run('Update of an approved quote', () => sendUpdate(status, author));
    }),
    deps.events.on('status.quote_policy_updated', ({ statusId, accountId }) => {
      const author = local(accountId);
      const status = statusById(deps, statusId);
      if (author && status) run('Update of a quote policy', () => sendUpdate(status, author));
    }),
    deps.events.on('quote.revoked', ({ accountId, quotedAccountId, approvalUri }) => {
      // Only the quoted author revokes; a remote one told us, so only our own revocations go out.
      const quotedAuthor = local(quotedAccountId);
      if (!quotedAuthor || !approvalUri) return;
      const quoter = accountById(deps, accountId);
      const del = toApQuoteAuthorizationDelete(approvalUri, actorUri(quotedAuthor, deps.uris));
      run('Delete of a QuoteAuthorization', async () => {
        const recipients = await loadFollowerRecipients(deps, quotedAuthor.id);
        if (quoter && quoter.domain === null && quoter.id !== quotedAuthor.id) recipients.push(...(await loadFollowerRecipients(deps, quoter.id)));
        const r = quoter && quoter.domain !== null ? recipientOf(quoter) : null;
        if (r) recipients.push(r);
        if (recipients.length > 0) await send(ctx(), quotedAuthor, recipients, del);
      });
    }),
  ];
  return async () => {
    stopped = true;
    offs.forEach((off) => off());
    await Promise.all([...inFlight]);
  };
}
