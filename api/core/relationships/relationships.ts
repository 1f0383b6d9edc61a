import { findAccountById, findAccountsByIds } from '../../db/repos/accounts.js';
import {
  followListPage,
  followersAmong,
  followRequestsOf,
  followsOf,
  requestersAmong,
  type FollowListEntry,
} from '../../db/repos/follows.js';
import type { PageBounds } from '../../db/paging.js';
import { notFound } from '../../util/errors.js';
import type { RelationshipView } from '../../serializers/relationship.js';
import type { Deps } from '../deps.js';

export type { RelationshipView } from '../../serializers/relationship.js';

/** The viewer's relationships to the given accounts, loaded in a few queries; keyed by account id. */
export function loadRelationships(deps: Deps, viewerId: string, ids: readonly string[]): Map<string, RelationshipView> {
  const unique = [...new Set(ids)];
  const out = new Map<string, RelationshipView>();
  if (unique.length === 0) return out;
  const follows = followsOf(deps.db, viewerId, unique);
  const requests = followRequestsOf(deps.db, viewerId, unique);
  const followers = followersAmong(deps.db, viewerId, unique);
  const requesters = requestersAmong(deps.db, viewerId, unique);
  for (const id of unique) {
    out.set(id, {
      id,
      following: follows.get(id) ?? null,
      requested: requests.get(id) ?? null,
      followedBy: followers.has(id),
      requestedBy: requesters.has(id),
    });
  }
  return out;
}

/** The viewer's relationship to one account. */
export function loadRelationship(deps: Deps, viewerId: string, id: string): RelationshipView {
  const view = loadRelationships(deps, viewerId, [id]).get(id);
  if (!view) throw notFound();
  return view;
}

/**
 * Relationships for GET /api/v1/accounts/relationships: in the order asked, each account once,
 * unknown accounts left out, and suspended ones too unless `withSuspended`.
 */
export function relationshipsFor(deps: Deps, viewerId: string, ids: readonly string[], withSuspended: boolean): RelationshipView[] {
  const unique = [...new Set(ids)];
  const accounts = findAccountsByIds(deps.db, unique);
  const present = unique.filter((id) => {
    const a = accounts.get(id);
    return a !== undefined && (withSuspended || a.suspended_at === null);
  });
  const views = loadRelationships(deps, viewerId, present);
  return present.flatMap((id) => {
    const v = views.get(id);
    return v ? [v] : [];
  });
}

/**
 * A page of an account's followers or of the accounts it follows, as (follow id, account id)
 * entries for paging. Unknown accounts are 404; the list is empty for a suspended account and for
 * one that hides its network, unless the viewer is its owner (Mastodon answers [] there, not 403).
 */
export function listFollows(
  deps: Deps,
  accountId: string,
  direction: 'followers' | 'following',
  page: PageBounds,
  viewerId: string | null,
): FollowListEntry[] {
  const account = findAccountById(deps.db, accountId);
  if (!account) throw notFound();
  if (account.suspended_at !== null) return [];
  if (account.hide_collections === 1 && viewerId !== account.id) return [];
  return followListPage(deps.db, account.id, direction, page);
}
