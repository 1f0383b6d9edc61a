import {
  broadcastTagIds,
  deleteAuthorFromHomeFeed,
  deleteTagFromHomeFeed,
  derivedTransaction,
  deleteHomeFeedEntry,
  findLocalFollowers,
  inHomeFeed,
  recentPublicTaggedStatuses,
  recentStatusesVisibleTo,
  followersAmong,
  hasUser,
  homeFeedHolders,
  insertHomeFeedEntries,
  recentlyInHomeFeed,
} from '../../db/repos/feeds.js';
import { mentionedAccountIds } from '../../db/repos/account-conversations.js';
import { findStatusById, type StatusRow } from '../../db/repos/statuses.js';
import type { Db } from '../../db/connection.js';
import type { Deps } from '../deps.js';
import { exclusiveListOwners } from '../lists/timeline.js';
import { canViewStatus, statusVisibilitySql } from '../statuses/visibility.js';
import { followersOfTags } from '../tags/tags.js';

/**
 * Home feeds are materialised (fan-out on write): when a status is created it is written into the
 * home feed of its local author and of each local follower it is meant for, following Mastodon's
 * home filters (FeedManager#filter_from_home) short of blocks and mutes, which the home feed
 * applies when it is read (core/relationships/exclusions.ts), so that a mute's end applies at once.
 */

/** A boost of something among this many newest entries of a feed is not shown again (Mastodon's REBLOG_FALLOFF). */
const REBLOG_FALLOFF = 40;
/** Statuses of one account merged into a home feed on follow or rebuild (Mastodon's MAX_ITEMS / 4). */
export const MERGE_LIMIT = 100;

/** How one recipient follows the author. */
export interface FollowOptions {
  showReblogs: boolean;
  /** Languages the recipient wants from this account; null for all. */
  languages: string[] | null;
}

function parseLanguages(json: string | null): string[] | null {
  if (json === null) return null;
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) && value.length > 0 ? value.filter((v): v is string => typeof v === 'string') : null;
  } catch {
    return null;
  }
}

/** Follow options from a follows row. */
export function followOptions(row: { show_reblogs: number; languages: string | null }): FollowOptions {
  return { showReblogs: row.show_reblogs === 1, languages: parseLanguages(row.languages) };
}

/**
 * Whether a status (already known to be visible to the recipient) belongs in their home feed.
 * `followsReplyTarget`: the recipient follows the account the status replies to.
 */
export function admitsToHome(status: StatusRow, recipientId: string, follow: FollowOptions | null, followsReplyTarget: boolean): boolean {
  if (status.account_id === recipientId) return true;
  // A reply whose parent is unknown cannot be judged: Mastodon leaves it out.
  if (status.in_reply_to_id === null && status.in_reply_to_uri !== null && status.reblog_of_id === null) return false;
  if (follow?.languages && status.language !== null && !follow.languages.includes(status.language)) return false;
  if (status.in_reply_to_account_id !== null) {
    // A reply to someone else shows only to those who follow that someone (or are that someone).
    const toOther = status.in_reply_to_account_id !== status.account_id && status.in_reply_to_account_id !== recipientId;
    return !(toOther && !followsReplyTarget);
  }
  if (status.reblog_of_id !== null && follow && !follow.showReblogs) return false;
  return true;
}

/** Inserts a status into one feed, unless it is a boost of something the feed showed just now. */
function pushToHome(db: Db, accountId: string, status: StatusRow): void {
  if (status.reblog_of_id !== null && recentlyInHomeFeed(db, accountId, status.reblog_of_id, REBLOG_FALLOFF)) return;
  insertHomeFeedEntries(db, accountId, [status.id]);
}

/**
 * Writes a new status into the home feeds it belongs to: the author's, the followers' it is meant
 * for, and, for a public original, those of local accounts following one of its hashtags. Runs
 * inside the caller's transaction (the status.created listener does all its work in one).
 */
export function fanOutToHomes(deps: Deps, status: StatusRow): void {
  const db = deps.db;
  if (hasUser(db, status.account_id)) pushToHome(db, status.account_id, status);
  // Public originals also reach those who follow one of their tags (Mastodon's broadcast).
  if (status.visibility === 'public' && status.reblog_of_id === null) {
    const tagIds = broadcastTagIds(db, status.id, status.account_id);
    for (const accountId of tagIds.length ? followersOfTags(deps, tagIds) : []) {
      if (accountId !== status.account_id) insertHomeFeedEntries(db, accountId, [status.id]);
    }
  }
  let followers = findLocalFollowers(db, status.account_id);
  if (status.visibility === 'direct') {
    // A direct status reaches the home of the followers it mentions, nobody else's.
    const mentioned = new Set(mentionedAccountIds(db, status.id));
    followers = followers.filter((f) => mentioned.has(f.account_id));
  }
  if (followers.length === 0) return;
  // Followers who keep the author in an exclusive list see its statuses there, not at home.
  const exclusive = exclusiveListOwners(deps, status.account_id);
  if (exclusive.size > 0) followers = followers.filter((f) => !exclusive.has(f.account_id));
  if (followers.length === 0) return;
  const replyTarget = status.in_reply_to_account_id;
  const followingTarget =
    replyTarget !== null && replyTarget !== status.account_id
      ? followersAmong(db, replyTarget, followers.map((f) => f.account_id))
      : new Set<string>();
  for (const f of followers) {
    if (f.account_id === status.account_id) continue;
    if (!admitsToHome(status, f.account_id, followOptions(f), followingTarget.has(f.account_id))) continue;
    pushToHome(db, f.account_id, status);
  }
}

/**
 * Merges the recent statuses of one account into a user's home feed (after a follow, and for each
 * followed account during a rebuild), with the same filters as fan-out. `followed` is the set of
 * accounts the user follows (for the reply filter). Runs inside the caller's transaction.
 */
export function mergeAccountIntoHome(deps: Deps, accountId: string, authorId: string, follow: FollowOptions | null, followed: ReadonlySet<string>): void {
  const db = deps.db;
  const entries: string[] = [];
  for (const status of recentStatusesVisibleTo(db, statusVisibilitySql, authorId, accountId, MERGE_LIMIT)) {
    const replyTarget = status.in_reply_to_account_id;
    if (!admitsToHome(status, accountId, follow, replyTarget !== null && followed.has(replyTarget))) continue;
    if (status.reblog_of_id !== null && inHomeFeed(db, accountId, status.reblog_of_id)) continue;
    entries.push(status.id);
  }
  insertHomeFeedEntries(db, accountId, entries);
}

/** Removes an unfollowed account's statuses and boosts from the user's home feed. */
export function unmergeAccountFromHome(deps: Deps, accountId: string, authorId: string): void {
  derivedTransaction(deps.db, () => deleteAuthorFromHomeFeed(deps.db, accountId, authorId));
}

/**
 * After an edit (mentions may have changed), removes the status from the home feeds of those who
 * may no longer see it.
 */
export function recheckHomes(deps: Deps, statusId: string): void {
  const status = findStatusById(deps.db, statusId);
  if (!status || status.visibility === 'public' || status.visibility === 'unlisted') return;
  const gone = homeFeedHolders(deps.db, statusId).filter((holder) => !canViewStatus(deps, status, holder));
  if (gone.length === 0) return;
  derivedTransaction(deps.db, () => {
    for (const holder of gone) deleteHomeFeedEntry(deps.db, holder, statusId);
  });
}

/** After a tag follow: its recent public statuses join the user's home feed. */
export function mergeTagIntoHome(deps: Deps, accountId: string, tagId: string): void {
  derivedTransaction(deps.db, () => insertHomeFeedEntries(deps.db, accountId, recentPublicTaggedStatuses(deps.db, tagId, accountId, MERGE_LIMIT)));
}

/** After a tag unfollow: what only that tag brought leaves the user's home feed. */
export function unmergeTagFromHome(deps: Deps, accountId: string, tagId: string): void {
  derivedTransaction(deps.db, () => deleteTagFromHomeFeed(deps.db, accountId, tagId));
}
