import type { AccountRow } from '../../db/repos/accounts.js';
import { attachMedia } from '../../db/repos/media.js';
import {
  bumpAccountStatuses,
  bumpStatusCounter,
  findIdempotencyKey,
  findStatusById,
  insertConversation,
  insertIdempotencyKey,
  insertStatus,
  updateStatus,
  type StatusRow,
  type Visibility,
} from '../../db/repos/statuses.js';
import type { UserRow } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import { setQuotePolicy, type QuotePolicyFlags } from '../../db/repos/quotes.js';
import { getUserSettings, type QuotePolicy } from '../accounts/settings.js';
import type { Deps } from '../deps.js';
import { createPollRow, type PollParams } from '../polls/create.js';
import { groupAudience, processStatusText, saveMentions, saveTags } from './text.js';
import { checkPollAndMedia, checkText, checkVisibility, loadAttachableMedia, pickLanguage } from './validate.js';
import { localPolicyFlags, parseQuotePolicy } from './quote-policy.js';
import { announceAcceptedQuote, attachQuote, checkDirectQuote, quoteInlineHtml, quoteVisibility, resolveQuoteTarget, type QuoteTarget } from './quotes.js';
import { canViewStatus } from './visibility.js';

/**
 * The parameters of a new status, in the shape Mastodon keeps for scheduled statuses (so that a
 * scheduled status is published with exactly what was asked). `poll` must already have passed
 * `validatePollParams`.
 */
export interface NewStatusParams {
  text?: string | null | undefined;
  media_ids?: readonly string[] | null | undefined;
  poll?: PollParams | null | undefined;
  sensitive?: boolean | null | undefined;
  spoiler_text?: string | null | undefined;
  visibility?: string | null | undefined;
  language?: string | null | undefined;
  in_reply_to_id?: string | null | undefined;
  application_id?: string | null | undefined;
  /** The status quoted (Mastodon 4.5); it must exist and let the author quote it (404 otherwise). */
  quoted_status_id?: string | null | undefined;
  /** Who may quote this status: public, followers or nobody (else the author's default). */
  quote_approval_policy?: string | null | undefined;
}

/** A status about to be written, once every rule has passed. */
export interface PreparedStatus {
  text: string;
  spoilerText: string;
  sensitive: boolean;
  visibility: Visibility;
  language: string | null;
  parent: StatusRow | null;
  mediaIds: string[];
  poll: PollParams | null;
  /** The status it quotes, with its author and what its policy grants. */
  quote: QuoteTarget | null;
  /** Who may quote it. */
  quotePolicy: QuotePolicyFlags;
}

/** The author's posting defaults, or Mastodon's when the author has no user (remote, tests). */
function defaults(user: UserRow | null): { privacy: Visibility; sensitive: boolean; language: string | null; quotePolicy: QuotePolicy } {
  if (!user) return { privacy: 'public', sensitive: false, language: null, quotePolicy: 'public' };
  const s = getUserSettings(user);
  return { privacy: s.default_privacy, sensitive: s.default_sensitive, language: s.default_language, quotePolicy: s.default_quote_policy };
}

/**
 * Checks a new status's parameters against every rule and resolves the defaults, writing
 * nothing: visibility (else the user's default privacy), text and length, media, poll, language
 * (else the user's default posting language), the replied-to status, which must exist and be
 * visible to the author (404 otherwise), and the quoted status, which the author must be allowed to
 * quote (404 otherwise; quoting a followers-only status makes the quote followers-only, and a direct
 * quote must mention the quoted author, 422), with the quote policy (else the user's default).
 */
export function prepareStatus(deps: Deps, author: AccountRow, user: UserRow | null, params: NewStatusParams): PreparedStatus {
  const d = defaults(user);
  let text = params.text ?? '';
  let spoilerText = params.spoiler_text ?? '';
  // Mastodon marks a status with a content warning sensitive, and a status that only has a
  // content warning gets it as its text.
  const sensitive = (params.sensitive ?? d.sensitive) || spoilerText !== '';
  if (text.trim() === '' && spoilerText.trim() !== '') {
    text = spoilerText;
    spoilerText = '';
  }
  let visibility = params.visibility ? checkVisibility(params.visibility) : d.privacy;
  const policy = parseQuotePolicy(params.quote_approval_policy) ?? d.quotePolicy;
  const mediaIds = [...new Set(params.media_ids ?? [])];
  const poll = params.poll ?? null;
  checkPollAndMedia(poll !== null, mediaIds.length > 0);
  checkText(text, spoilerText, mediaIds.length > 0);
  const media = loadAttachableMedia(deps, author, mediaIds, null);
  let parent: StatusRow | null = null;
  if (params.in_reply_to_id) {
    parent = findStatusById(deps.db, params.in_reply_to_id) ?? null;
    // A boost cannot be replied to, and neither can what the author may not see.
    if (!parent || parent.reblog_of_id !== null || !canViewStatus(deps, parent, author.id)) throw notFound();
  }
  const quote = params.quoted_status_id ? resolveQuoteTarget(deps, author, params.quoted_status_id) : null;
  if (quote) {
    visibility = quoteVisibility(quote, visibility);
    checkDirectQuote(deps, quote, author, text, visibility);
  }
  return {
    text,
    spoilerText,
    sensitive,
    visibility,
    language: pickLanguage(params.language, d.language),
    parent,
    mediaIds: media.map((m) => m.id),
    poll,
    quote,
    quotePolicy: localPolicyFlags(policy, visibility),
  };
}

/** How long an Idempotency-Key is remembered, as Mastodon keeps it. */
export const IDEMPOTENCY_WINDOW_MS = 60 * 60 * 1000;

/** The status an earlier request with the same Idempotency-Key created, if it is still remembered. */
export function findIdempotentResult(deps: Deps, accountId: string, key: string): { statusId: string | null; scheduledStatusId: string | null } | null {
  const row = findIdempotencyKey(deps.db, accountId, key, now() - IDEMPOTENCY_WINDOW_MS);
  if (!row || (row.status_id === null && row.scheduled_status_id === null)) return null;
  return { statusId: row.status_id, scheduledStatusId: row.scheduled_status_id };
}

/** What `createStatus` did. */
export interface CreatedStatus {
  status: StatusRow;
  /** True when an earlier request with the same Idempotency-Key had created it. */
  repeated: boolean;
}

/**
 * Posts a status: validates everything first (see `prepareStatus`), then in one transaction
 * writes the status with its conversation, mentions (group members as silent mentions), hashtags,
 * media, poll, quote and quote policy, bumps the parent's replies_count and the author's
 * statuses_count, remembers the Idempotency-Key; then emits 'status.created' (and 'quote.accepted'
 * for a quote approved at once). A repeated Idempotency-Key within an hour returns
 * the first status and writes nothing. Scheduled statuses are published through this too.
 */
export function createStatus(
  deps: Deps,
  author: AccountRow,
  user: UserRow | null,
  params: NewStatusParams,
  options: { idempotencyKey?: string | null | undefined } = {},
): CreatedStatus {
  const key = options.idempotencyKey || null;
  if (key) {
    const earlier = findIdempotentResult(deps, author.id, key);
    const status = earlier?.statusId ? findStatusById(deps.db, earlier.statusId) : undefined;
    if (status) return { status, repeated: true };
  }
  const p = prepareStatus(deps, author, user, params);
  const processed = processStatusText(deps, p.text);
  const silent = groupAudience(deps, processed.mentioned, author.id);
  const at = now();
  const id = newId(at);
  const db = deps.db;
  // Software that does not show quotes reads a link to the quoted status before the text.
  const inline = p.quote ? quoteInlineHtml(deps, p.quote, p.text) : '';

  const quote = db.transaction(() => {
    let conversationId: string;
    if (p.parent) {
      // Replies join the parent's thread; a parent without one (remote) starts it now.
      conversationId = p.parent.conversation_id ?? insertConversation(db, newId(at), at);
      if (p.parent.conversation_id === null) updateStatus(db, p.parent.id, { conversation_id: conversationId });
    } else {
      conversationId = insertConversation(db, newId(at), at);
    }
    insertStatus(db, {
      id,
      account_id: author.id,
      local: 1,
      visibility: p.visibility,
      text: p.text,
      content: inline + processed.html,
      spoiler_text: p.spoilerText,
      sensitive: p.sensitive ? 1 : 0,
      language: p.language,
      in_reply_to_id: p.parent?.id ?? null,
      in_reply_to_account_id: p.parent?.account_id ?? null,
      conversation_id: conversationId,
      application_id: params.application_id ?? null,
      created_at: at,
      updated_at: at,
    });
    saveMentions(deps, id, processed.mentioned, silent);
    saveTags(deps, id, processed.tagNames, at);
    p.mediaIds.forEach((mediaId, position) => attachMedia(db, mediaId, id, position, at));
    if (p.poll) createPollRow(deps, id, author.id, p.poll);
    // Mastodon counts only public and unlisted replies, and leaves direct statuses out of the
    // author's count.
    if (p.parent && (p.visibility === 'public' || p.visibility === 'unlisted')) bumpStatusCounter(db, p.parent.id, 'replies_count', 1);
    if (p.visibility !== 'direct') bumpAccountStatuses(db, author.id, 1, at);
    if (key) insertIdempotencyKey(db, { account_id: author.id, key, status_id: id, scheduled_status_id: null, created_at: at });
    setQuotePolicy(db, id, p.quotePolicy);
    return p.quote ? attachQuote(deps, id, author, p.quote, at) : null;
  });

  const status = findStatusById(db, id);
  if (!status) throw new Error(`status ${id} vanished after insert`);
  deps.events.emit('status.created', { statusId: id, accountId: author.id });
  if (quote) announceAcceptedQuote(deps, quote);
  return { status, repeated: false };
}
