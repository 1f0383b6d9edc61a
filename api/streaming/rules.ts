import type { Deps } from '../core/deps.js';
import { hiddenStatusIds, type ListingKind } from '../core/relationships/exclusions.js';
import type { StatusView } from '../core/statuses/views.js';
import { canViewStatus } from '../core/statuses/visibility.js';
import type { StatusRow } from '../db/repos/statuses.js';
import { accountsWithRelationships, type ListForStatusRow } from '../db/repos/streaming.js';

/**
 * Per-subscriber rules of the streams that are not decided elsewhere (the home feed's fan-out
 * decides the `user` stream; core's visibility rule set decides who may see a status).
 */

/**
 * THE exclusion check of every stream, for many subscribers at once: of `viewerIds`, those whose
 * blocks, mutes or domain blocks hide the status, by the rules of core/relationships/exclusions.ts
 * for the kind of listing (`feed` for home, lists and direct messages; `timeline` for the public
 * and hashtag streams). Only viewers with any relationship at all are checked one by one.
 */
export function excludedViewers(deps: Deps, viewerIds: readonly string[], statusId: string, kind: ListingKind): Set<string> {
  const out = new Set<string>();
  for (const viewerId of accountsWithRelationships(deps.db, [...new Set(viewerIds)])) {
    if (hiddenStatusIds(deps, viewerId, [statusId], kind).has(statusId)) out.add(viewerId);
  }
  return out;
}

/** A reply to someone other than its author (a reply whose parent is unknown counts as one). */
export function isReplyToOther(status: Pick<StatusRow, 'in_reply_to_id' | 'in_reply_to_uri' | 'in_reply_to_account_id' | 'account_id'>): boolean {
  const reply = status.in_reply_to_id !== null || status.in_reply_to_uri !== null;
  return reply && status.in_reply_to_account_id !== status.account_id;
}

/**
 * Whether a status goes to the public and hashtag streams, as Mastodon broadcasts: public, not a
 * reblog, by an account that is neither suspended nor silenced (the public timelines' rule).
 */
export function isBroadcastable(view: StatusView): boolean {
  const s = view.status;
  return s.visibility === 'public' && s.reblog_of_id === null && view.author.suspended_at === null && view.author.silenced_at === null;
}

/**
 * Whether a list shows a status of one of its members, with the rules of the list timeline
 * (db/repos/lists.ts `listTimelineIds`): never direct; visible to the owner; a reblog unless the
 * owner's follow hides the member's reblogs; a reply to someone other than the author or the owner
 * only under `followed` (the owner follows that account) or `list` (that account is a member).
 */
export function listAdmits(deps: Deps, list: ListForStatusRow, status: StatusRow): boolean {
  if (status.visibility === 'direct') return false;
  if (status.reblog_of_id !== null) {
    if (list.hides_reblogs === 1) return false;
  } else if (status.in_reply_to_id !== null || status.in_reply_to_uri !== null) {
    const to = status.in_reply_to_account_id;
    const allowed =
      (to !== null && (to === status.account_id || to === list.account_id)) ||
      (list.replies_policy === 'followed' && list.follows_reply_target === 1) ||
      (list.replies_policy === 'list' && list.lists_reply_target === 1);
    if (!allowed) return false;
  }
  return canViewStatus(deps, status, list.account_id);
}
