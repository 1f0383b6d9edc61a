import { findAccountById, findAccountsByIds } from '../../db/repos/accounts.js';
import { endorsedAmong, notesOf } from '../../db/repos/account-notes.js';
import { blockedAmong, blockedDomainsAmong, blockersAmong, findBlock } from '../../db/repos/blocks.js';
import {
  familiarFollowerRows,
  followListPage,
  followersAmong,
  followRequestsOf,
  followsOf,
  requestersAmong,
  type FollowListEntry,
} from '../../db/repos/follows.js';
import { activeMutesOf } from '../../db/repos/mutes.js';
import type { PageBounds } from '../../db/paging.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import type { RelationshipView } from '../../serializers/relationship.js';
import type { Deps } from '../deps.js';
import { accountExcludedSql } from './exclusions.js';

export type { RelationshipView } from '../../serializers/relationship.js';

/**
 * The viewer's relationships to the given accounts, loaded in a fixed number of queries whatever
 * their number (follows and requests both ways, blocks both ways, the active mute, domain blocks,
 * endorsements, notes); keyed by account id. A mute that has expired counts as none.
 */
export function loadRelationships(deps: Deps, viewerId: string, ids: readonly string[]): Map<string, RelationshipView> {
  const unique = [...new Set(ids)];
  const out = new Map<string, RelationshipView>();
  if (unique.length === 0) return out;
  const db = deps.db;
  const follows = followsOf(db, viewerId, unique);
  const requests = followRequestsOf(db, viewerId, unique);
  const followers = followersAmong(db, viewerId, unique);
  const requesters = requestersAmong(db, viewerId, unique);
  const blocking = blockedAmong(db, viewerId, unique);
  const blockedBy = blockersAmong(db, viewerId, unique);
  const mutes = activeMutesOf(db, viewerId, unique, now());
  const accounts = findAccountsByIds(db, unique);
  const domains = [...accounts.values()].map((a) => a.domain).filter((d): d is string => d !== null);
  const blockedDomains = blockedDomainsAmong(db, viewerId, domains);
  const endorsed = endorsedAmong(db, viewerId, unique);
  const notes = notesOf(db, viewerId, unique);
  for (const id of unique) {
    const mute = mutes.get(id);
    const domain = accounts.get(id)?.domain ?? null;
    out.set(id, {
      id,
      following: follows.get(id) ?? null,
      requested: requests.get(id) ?? null,
      followedBy: followers.has(id),
      requestedBy: requesters.has(id),
      blocking: blocking.has(id),
      blockedBy: blockedBy.has(id),
      muting: mute ? { hideNotifications: mute.hide_notifications === 1, expiresAt: mute.expires_at } : null,
      domainBlocking: domain !== null && blockedDomains.has(domain),
      endorsed: endorsed.has(id),
      note: notes.get(id) ?? '',
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
 * entries for paging. Unknown accounts are 404; the list is empty for a suspended account, for
 * one that hides its network unless the viewer is its owner, and for one that blocks the viewer
 * (Mastodon answers [] there, not 403). The accounts the viewer blocks, mutes or is blocked by are
 * left out, as Mastodon's `not_excluded_by_account` leaves them out.
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
  if (viewerId !== null && viewerId !== account.id && findBlock(deps.db, account.id, viewerId)) return [];
  return followListPage(deps.db, account.id, direction, page, viewerId === null ? null : accountExcludedSql, viewerId);
}

/** Mastodon's FamiliarFollowers entry: an account and the followers of it that the viewer follows. */
export interface FamiliarFollowers {
  id: string;
  accountIds: string[];
}

/**
 * GET /api/v1/accounts/familiar_followers: for each account asked (in order, each once, unknown
 * and suspended ones left out), its followers that the viewer follows, as Mastodon computes them:
 * none for an account that hides its network, and never a follower that hides its own.
 */
export function familiarFollowers(deps: Deps, viewerId: string, ids: readonly string[]): FamiliarFollowers[] {
  const unique = [...new Set(ids)];
  const accounts = findAccountsByIds(deps.db, unique);
  const present = unique.filter((id) => {
    const a = accounts.get(id);
    return a !== undefined && a.suspended_at === null;
  });
  const byTarget = new Map<string, string[]>();
  for (const row of familiarFollowerRows(deps.db, viewerId, present)) {
    const list = byTarget.get(row.target_account_id) ?? [];
    list.push(row.account_id);
    byTarget.set(row.target_account_id, list);
  }
  return present.map((id) => ({ id, accountIds: accounts.get(id)?.hide_collections === 1 ? [] : (byTarget.get(id) ?? []) }));
}
