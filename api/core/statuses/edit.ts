import type { AccountRow } from '../../db/repos/accounts.js';
import { attachMedia, detachMediaExcept, findMediaByStatusIds, updateMediaDescription, type MediaRow } from '../../db/repos/media.js';
import type { PollRow } from '../../db/repos/polls.js';
import { hasStatusEdits, insertStatusEdit } from '../../db/repos/status-edits.js';
import { deletePollOfStatus, findPollsByStatusIds, updatePollSettings } from '../../db/repos/status-polls.js';
import { findStatusById, updateStatus, type StatusRow } from '../../db/repos/statuses.js';
import type { UserRow } from '../../db/repos/users.js';
import { pollOptionTitles } from '../../serializers/poll.js';
import { now } from '../../util/clock.js';
import { ApiError, notFound } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import { getUserSettings } from '../accounts/settings.js';
import type { Deps } from '../deps.js';
import { MEDIA_LIMITS } from '../instance/limits.js';
import { createPollRow, type PollParams } from '../polls/create.js';
import { setQuotePolicy } from '../../db/repos/quotes.js';
import { localPolicyFlags, parseQuotePolicy, policyOf } from './quote-policy.js';
import { quoteInlineOf } from './quotes.js';
import { processStatusText, saveMentions, saveTags, groupAudience } from './text.js';
import { checkPollAndMedia, checkText, loadAttachableMedia, pickLanguage } from './validate.js';

/** New description and focal point for one attached medium (`media_attributes[]`). */
export interface MediaAttributes {
  id: string;
  description?: string | null | undefined;
  /** "x,y" with both in [-1, 1], as Mastodon takes it. */
  focus?: string | null | undefined;
}

/**
 * An edit, as Mastodon's PUT takes it: the whole new state. Text, content warning, sensitivity,
 * media and poll left out are cleared (clients send everything); the language is kept.
 */
export interface EditStatusParams {
  text?: string | null | undefined;
  spoiler_text?: string | null | undefined;
  sensitive?: boolean | null | undefined;
  language?: string | null | undefined;
  media_ids?: readonly string[] | null | undefined;
  media_attributes?: readonly MediaAttributes[] | null | undefined;
  /** Already checked by `validatePollParams`; null or absent removes the poll. */
  poll?: PollParams | null | undefined;
  /** Who may quote it from now on (public, followers, nobody); absent keeps the policy. */
  quote_approval_policy?: string | null | undefined;
}

/** One medium as a version records it. */
interface MediaSnapshot {
  id: string;
  description: string | null;
  focus: { x: number; y: number } | null;
}

function mediaSnapshot(media: readonly MediaRow[]): MediaSnapshot[] {
  return media.map((m) => ({
    id: m.id,
    description: m.description,
    focus: m.focus_x !== null && m.focus_y !== null ? { x: m.focus_x, y: m.focus_y } : null,
  }));
}

function parseFocus(value: string | null | undefined): { x: number; y: number } | null {
  if (value === undefined || value === null || value.trim() === '') return null;
  const parts = value.split(',').map((p) => Number(p.trim()));
  const [x, y] = parts;
  if (parts.length !== 2 || x === undefined || y === undefined || !Number.isFinite(x) || !Number.isFinite(y) || Math.abs(x) > 1 || Math.abs(y) > 1) {
    throw new ApiError(422, 'Validation failed: Focus is invalid');
  }
  return { x, y };
}

function recordVersion(deps: Deps, status: StatusRow, media: readonly MediaSnapshot[], poll: string[] | null, at: number): void {
  insertStatusEdit(deps.db, {
    id: newId(at),
    status_id: status.id,
    account_id: status.account_id,
    text: status.text,
    content: status.content,
    spoiler_text: status.spoiler_text,
    sensitive: status.sensitive,
    language: status.language,
    media: JSON.stringify(media),
    poll: poll === null ? null : JSON.stringify({ options: poll }),
    created_at: at,
  });
}

/**
 * Edits one of the author's statuses (404 for anything else, reblogs included). Everything is
 * checked before writing; then, in one transaction: the original version is recorded the first
 * time, media are re-attached in the new order with their new descriptions, the poll is
 * replaced (its votes reset when options or multiple change) or removed, the text is re-rendered
 * with its mentions and tags (after the link to a quoted status, as when posting), edited_at is
 * set, and the new version is recorded. An edit that changes nothing writes nothing. Emits
 * 'status.updated'; a change of the quote policy alone is no edit ('status.quote_policy_updated').
 */
export function editStatus(deps: Deps, author: AccountRow, user: UserRow | null, statusId: string, params: EditStatusParams): StatusRow {
  const db = deps.db;
  const status = findStatusById(db, statusId);
  if (!status || status.account_id !== author.id || status.reblog_of_id !== null) throw notFound();

  let spoilerText = params.spoiler_text ?? '';
  let text = params.text ?? '';
  // As when posting: a content warning alone becomes the text.
  if (text.trim() === '' && spoilerText.trim() !== '') {
    text = spoilerText;
    spoilerText = '';
  }
  const sensitive = Boolean(params.sensitive) || (params.spoiler_text ?? '') !== '';
  const language = pickLanguage(params.language, status.language, user ? getUserSettings(user).default_language : null);
  const poll = params.poll ?? null;
  const mediaIds = [...new Set(params.media_ids ?? [])];
  checkPollAndMedia(poll !== null, mediaIds.length > 0);
  checkText(text, spoilerText, mediaIds.length > 0);
  const media = loadAttachableMedia(deps, author, mediaIds, status.id);
  const attributes = new Map<string, { description: string | null; focus: { x: number; y: number } | null }>();
  for (const attr of params.media_attributes ?? []) {
    const current = media.find((m) => m.id === attr.id);
    // Attributes of media that are not part of the edit are ignored, as Mastodon does.
    if (!current) continue;
    const description = attr.description === undefined ? current.description : attr.description || null;
    if (description !== null && description.length > MEDIA_LIMITS.description_limit) {
      throw new ApiError(422, `Validation failed: Description is too long (maximum is ${MEDIA_LIMITS.description_limit} characters)`);
    }
    const focus = attr.focus === undefined ? (current.focus_x !== null && current.focus_y !== null ? { x: current.focus_x, y: current.focus_y } : null) : parseFocus(attr.focus);
    attributes.set(attr.id, { description, focus });
  }

  const oldMedia = findMediaByStatusIds(db, [status.id]);
  const oldPoll: PollRow | null = findPollsByStatusIds(db, [status.id]).get(status.id) ?? null;
  const oldPollOptions = oldPoll ? pollOptionTitles(oldPoll) : null;
  const newMediaSnapshot: MediaSnapshot[] = media.map((m) => {
    const a = attributes.get(m.id);
    return { id: m.id, description: a ? a.description : m.description, focus: a ? a.focus : m.focus_x !== null && m.focus_y !== null ? { x: m.focus_x, y: m.focus_y } : null };
  });
  const mediaChanged = JSON.stringify(mediaSnapshot(oldMedia)) !== JSON.stringify(newMediaSnapshot);
  const at = now();
  const pollReset = poll !== null && (oldPoll === null || JSON.stringify(oldPollOptions) !== JSON.stringify(poll.options) || Boolean(oldPoll.multiple) !== poll.multiple);
  // Mastodon counts a new deadline as a change of the poll too.
  const pollChanged =
    pollReset ||
    (poll === null && oldPoll !== null) ||
    (poll !== null && oldPoll !== null && (Boolean(oldPoll.hide_totals) !== poll.hide_totals || oldPoll.expires_at !== at + poll.expires_in * 1000));
  const processed = processStatusText(deps, text);
  const statusChanged =
    text !== status.text || spoilerText !== status.spoiler_text || (sensitive ? 1 : 0) !== status.sensitive || language !== status.language;
  const requested = parseQuotePolicy(params.quote_approval_policy);
  const policy = requested === null ? null : localPolicyFlags(requested, status.visibility);
  const current = policyOf(deps, status.id);
  const policyChanged = policy !== null && (policy.automatic !== current.automatic || policy.manual !== current.manual);
  if (!statusChanged && !mediaChanged && !pollChanged) {
    if (policy && policyChanged) {
      db.transaction(() => setQuotePolicy(db, status.id, policy));
      deps.events.emit('status.quote_policy_updated', { statusId: status.id, accountId: author.id });
    }
    return status;
  }
  const inline = quoteInlineOf(deps, status.id, text);

  db.transaction(() => {
    if (!hasStatusEdits(db, status.id)) recordVersion(deps, status, mediaSnapshot(oldMedia), oldPollOptions, status.created_at);
    detachMediaExcept(db, status.id, media.map((m) => m.id), at);
    newMediaSnapshot.forEach((m, position) => {
      attachMedia(db, m.id, status.id, position, at);
      if (attributes.has(m.id)) updateMediaDescription(db, m.id, m.description, m.focus?.x ?? null, m.focus?.y ?? null, at);
    });
    if (poll === null) {
      if (oldPoll) deletePollOfStatus(db, status.id);
    } else if (pollReset || !oldPoll) {
      // New options invalidate every vote: the poll starts over.
      if (oldPoll) deletePollOfStatus(db, status.id);
      createPollRow(deps, status.id, author.id, poll);
    } else {
      updatePollSettings(db, oldPoll.id, at + poll.expires_in * 1000, poll.hide_totals ? 1 : 0, at);
    }
    updateStatus(db, status.id, {
      text,
      content: inline + processed.html,
      spoiler_text: spoilerText,
      sensitive: sensitive ? 1 : 0,
      language,
      edited_at: at,
      updated_at: at,
    });
    saveMentions(deps, status.id, processed.mentioned, groupAudience(deps, processed.mentioned, author.id));
    saveTags(deps, status.id, processed.tagNames, at);
    if (policy) setQuotePolicy(db, status.id, policy);
    const updated = findStatusById(db, status.id);
    if (updated) recordVersion(deps, updated, newMediaSnapshot, poll ? poll.options : null, at);
  });

  deps.events.emit('status.updated', { statusId: status.id, accountId: author.id });
  const updated = findStatusById(db, status.id);
  if (!updated) throw notFound();
  return updated;
}
