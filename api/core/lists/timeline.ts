import type { PageBounds } from '../../db/paging.js';
import { exclusiveListOwnerIds, exclusiveMemberIds, listTimelineIds } from '../../db/repos/lists.js';
import type { Deps } from '../deps.js';
import { hiddenStatusIds } from '../filters/active.js';
import { excluding } from '../relationships/exclusions.js';
import { statusVisibilitySql } from '../statuses/visibility.js';
import { getList } from './manage.js';

/**
 * The list timeline (GET /api/v1/timelines/list/:list_id) as status ids, newest first: what the
 * list's members posted or reblogged that the owner may see (the one visibility rule set, and the
 * owner's blocks, mutes and domain blocks as in the home feed), with the
 * list's replies policy applied: a reply to someone other than its author or the owner shows with
 * `followed` when the owner follows the replied-to account, with `list` when that account is a
 * member, and never with `none`. 404 when the list is not the viewer's.
 */
export function listTimelineStatusIds(deps: Deps, viewerAccountId: string, listId: string, page: PageBounds): string[] {
  const list = getList(deps, viewerAccountId, listId);
  return listTimelineIds(deps.db, excluding(statusVisibilitySql, 'feed'), list, page);
}

/**
 * Accounts whose posts leave the owner's home feed because they are members of one of the owner's
 * exclusive lists (Mastodon 4.2 `exclusive`); for the home feed's fan-out.
 */
export function exclusiveListMembers(deps: Deps, ownerAccountId: string): Set<string> {
  return new Set(exclusiveMemberIds(deps.db, ownerAccountId));
}

/**
 * Users who keep the account in one of their exclusive lists: its statuses do not enter their home
 * feeds (Mastodon's `exclusive_list_users` crutch in FeedManager#filter_from_home).
 */
export function exclusiveListOwners(deps: Deps, memberAccountId: string): Set<string> {
  return new Set(exclusiveListOwnerIds(deps.db, memberAccountId));
}

/** A page of a list timeline: the ids shown, and the ids read (the Link header pages on those). */
export interface ListTimelinePage {
  ids: string[];
  pageIds: string[];
}

/**
 * One page of the list timeline as the REST API serves it: `listTimelineStatusIds` without what the
 * owner's `hide` filters match in the home context (Mastodon's `home` context covers lists).
 */
export function readListTimeline(deps: Deps, viewerAccountId: string, listId: string, page: PageBounds): ListTimelinePage {
  const pageIds = listTimelineStatusIds(deps, viewerAccountId, listId, page);
  const hidden = hiddenStatusIds(deps, viewerAccountId, 'home', pageIds);
  return { ids: hidden.size === 0 ? pageIds : pageIds.filter((id) => !hidden.has(id)), pageIds };
}
