import { derivedTransaction, ensureFeedState, findFollowedAccounts, hasUser } from '../../db/repos/feeds.js';
import { findStatusById } from '../../db/repos/statuses.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { indexStatus, unindexDeletedStatus } from '../search/index.js';
import { forgetDirectStatus, recordDirectStatus } from './conversations.js';
import {
  fanOutToHomes,
  followOptions,
  mergeAccountIntoHome,
  mergeTagIntoHome,
  recheckHomes,
  unmergeAccountFromHome,
  unmergeTagFromHome,
} from './fanout.js';
import { repairDerivedData } from './repair.js';
import { timelineState } from './state.js';

/**
 * Subscribes timelines and search to core events (called once by createApp):
 * - status.created: fan-out to home feeds, direct conversations and the search index, all in one
 *   transaction per status (derived rows: a commit that does not wait for the disk);
 * - status.updated / status.deleted: search index, conversations, home feeds, rendered cache;
 * - follow.created / follow.deleted: merge into or remove from the follower's home feed;
 * - tag.followed / tag.unfollowed: the same for a followed hashtag's public statuses;
 * - user.signed_up: a new user's (empty) feed is complete;
 * - account and follow changes drop the rendered statuses that embed those accounts.
 * First it repairs what a power loss may have cut from feeds and the search index (repair.ts).
 */
export function installTimelines(deps: Deps): void {
  const { cache } = timelineState(deps);
  const { events, db } = deps;
  repairDerivedData(deps);

  events.on('user.signed_up', ({ accountId }) => ensureFeedState(db, accountId, now()));

  events.on('status.created', ({ statusId, accountId }) => {
    const status = findStatusById(db, statusId);
    if (!status) return;
    // Derived rows only: their commit need not wait for the disk (see derivedTransaction).
    derivedTransaction(db, () => {
      fanOutToHomes(deps, status);
      recordDirectStatus(deps, status);
      indexStatus(deps, statusId);
    });
    // The author's statuses_count moved; a reply moved its parent's replies_count (read live).
    cache.evictAccount(accountId);
  });

  events.on('status.updated', ({ statusId }) => {
    cache.evict(statusId);
    derivedTransaction(db, () => indexStatus(deps, statusId));
    recheckHomes(deps, statusId);
  });

  events.on('status.deleted', ({ statusId, accountId, visibility, mentionedAccountIds }) => {
    // home_feed rows went with the status (ON DELETE CASCADE).
    cache.evict(statusId);
    cache.evictAccount(accountId);
    derivedTransaction(db, () => unindexDeletedStatus(deps, statusId));
    if (visibility === 'direct') forgetDirectStatus(deps, [accountId, ...mentionedAccountIds]);
  });

  events.on('follow.created', ({ accountId, targetAccountId }) => {
    cache.evictAccount(accountId);
    cache.evictAccount(targetAccountId);
    if (!hasUser(db, accountId)) return;
    const follows = findFollowedAccounts(db, accountId);
    const follow = follows.find((f) => f.target_account_id === targetAccountId);
    if (!follow) return;
    const followed = new Set(follows.map((f) => f.target_account_id));
    derivedTransaction(db, () => mergeAccountIntoHome(deps, accountId, targetAccountId, followOptions(follow), followed));
  });

  events.on('follow.deleted', ({ accountId, targetAccountId }) => {
    cache.evictAccount(accountId);
    cache.evictAccount(targetAccountId);
    if (hasUser(db, accountId)) unmergeAccountFromHome(deps, accountId, targetAccountId);
  });

  events.on('tag.followed', ({ accountId, tagId }) => {
    if (hasUser(db, accountId)) mergeTagIntoHome(deps, accountId, tagId);
  });
  events.on('tag.unfollowed', ({ accountId, tagId }) => {
    if (hasUser(db, accountId)) unmergeTagFromHome(deps, accountId, tagId);
  });

  events.on('account.updated', ({ accountId }) => cache.evictAccount(accountId));
  // Quotes: a quoted status's quotes_count, and a status's quote policy, change without an edit.
  events.on('quote.accepted', ({ quotedStatusId }) => cache.evict(quotedStatusId));
  for (const name of ['quote.revoked', 'quote.deleted'] as const) {
    events.on(name, ({ quotedStatusId }) => {
      if (quotedStatusId !== null) cache.evict(quotedStatusId);
    });
  }
  events.on('status.quote_policy_updated', ({ statusId }) => cache.evict(statusId));
}
