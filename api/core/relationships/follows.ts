import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import { blockedEitherWay, findDomainBlock } from '../../db/repos/blocks.js';
import {
  adjustFollowCounts,
  deleteFollow,
  deleteFollowRequest,
  findFollow,
  findFollowRequest,
  insertFollow,
  insertFollowRequest,
  updateFollowOptions,
  updateFollowRequestOptions,
  type FollowOptionsRow,
  type FollowRow,
} from '../../db/repos/follows.js';
import { now } from '../../util/clock.js';
import { ApiError, forbidden, notFound, unprocessable } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import { normalizeLanguage } from '../accounts/languages.js';
import type { Deps } from '../deps.js';

/**
 * Follow options as the API takes them; `undefined` means "not given": a new follow takes the
 * default (reblogs shown, no notifications, all languages) and an existing one keeps its value.
 */
export interface FollowOptions {
  reblogs?: boolean | undefined;
  notify?: boolean | undefined;
  /** Language codes; an empty list means all languages. */
  languages?: readonly string[] | undefined;
}

/** What a follow call did. */
export type FollowOutcome =
  | { kind: 'followed'; follow: FollowRow; created: boolean }
  | { kind: 'requested'; request: FollowRow; created: boolean };

/** Mastodon's error text for following oneself (403). */
export const SELF_FOLLOW_ERROR = 'Following your own account is not allowed';

function normalizeLanguages(languages: readonly string[] | undefined): string | null | undefined {
  if (languages === undefined) return undefined;
  const given = languages.map((l) => l.trim()).filter(Boolean);
  const list = [...new Set(given.map((l) => normalizeLanguage(l)))];
  if (list.some((l) => l === null)) throw unprocessable('Languages is invalid');
  // No language given means "all languages", stored as NULL.
  return list.length ? JSON.stringify(list) : null;
}

function mergeOptions(existing: FollowOptionsRow | null, options: FollowOptions, languages: string | null | undefined): FollowOptionsRow {
  return {
    show_reblogs: options.reblogs === undefined ? (existing?.show_reblogs ?? 1) : options.reblogs ? 1 : 0,
    notify: options.notify === undefined ? (existing?.notify ?? 0) : options.notify ? 1 : 0,
    languages: languages === undefined ? (existing?.languages ?? null) : languages,
  };
}

function sameOptions(a: FollowOptionsRow, b: FollowOptionsRow): boolean {
  return a.show_reblogs === b.show_reblogs && a.notify === b.notify && a.languages === b.languages;
}

/**
 * `actor` follows the account `targetAccountId` (the REST API and, later, federation call this).
 * Following oneself is refused (403) and an unknown or suspended target is 404, as Mastodon does.
 * An existing follow or pending request only has its options changed. A locked target, a remote
 * target (it answers with Accept later) or a silenced follower makes a follow request instead.
 * A block either way, or the actor's block of the target's domain, forbids following (403, as
 * Mastodon's FollowService). Counters move with the follow; events are emitted after commit.
 */
export function followAccount(deps: Deps, actor: AccountRow, targetAccountId: string, options: FollowOptions = {}): FollowOutcome {
  if (targetAccountId === actor.id) throw new ApiError(403, SELF_FOLLOW_ERROR);
  const target = findAccountById(deps.db, targetAccountId);
  if (!target || target.suspended_at !== null) throw notFound();
  if (target.moved_to_account_id !== null) throw forbidden();
  if (blockedEitherWay(deps.db, actor.id, target.id)) throw forbidden();
  if (target.domain !== null && findDomainBlock(deps.db, actor.id, target.domain)) throw forbidden();
  const languages = normalizeLanguages(options.languages);
  const at = now();

  const outcome = deps.db.transaction((): FollowOutcome => {
    const follow = findFollow(deps.db, actor.id, target.id);
    if (follow) {
      const next = mergeOptions(follow, options, languages);
      if (!sameOptions(follow, next)) updateFollowOptions(deps.db, follow.id, next, at);
      return { kind: 'followed', follow: { ...follow, ...next }, created: false };
    }
    const request = findFollowRequest(deps.db, actor.id, target.id);
    if (request) {
      const next = mergeOptions(request, options, languages);
      if (!sameOptions(request, next)) updateFollowRequestOptions(deps.db, request.id, next, at);
      return { kind: 'requested', request: { ...request, ...next }, created: false };
    }
    const row: FollowRow = {
      id: newId(at),
      account_id: actor.id,
      target_account_id: target.id,
      ...mergeOptions(null, options, languages),
      uri: null,
      created_at: at,
      updated_at: at,
    };
    // Remote accounts confirm with an Accept, so a follow to them starts as a request too.
    if (target.locked === 1 || target.domain !== null || actor.silenced_at !== null) {
      insertFollowRequest(deps.db, row);
      return { kind: 'requested', request: row, created: true };
    }
    insertFollow(deps.db, row);
    adjustFollowCounts(deps.db, actor.id, target.id, 1);
    return { kind: 'followed', follow: row, created: true };
  });

  if (outcome.created) {
    if (outcome.kind === 'followed') {
      deps.events.emit('follow.created', { followId: outcome.follow.id, accountId: actor.id, targetAccountId: target.id });
    } else {
      deps.events.emit('follow_request.created', { followRequestId: outcome.request.id, accountId: actor.id, targetAccountId: target.id });
    }
  }
  return outcome;
}

/**
 * `actor` stops following `targetAccountId`, or withdraws a pending request. Not following is not
 * an error (Mastodon answers the relationship as it is); an unknown account is 404.
 */
export function unfollowAccount(deps: Deps, actor: AccountRow, targetAccountId: string): void {
  const target = findAccountById(deps.db, targetAccountId);
  if (!target) throw notFound();
  const removed = deps.db.transaction(() => {
    const follow = findFollow(deps.db, actor.id, target.id);
    if (follow) {
      deleteFollow(deps.db, follow.id);
      adjustFollowCounts(deps.db, actor.id, target.id, -1);
    }
    const request = findFollowRequest(deps.db, actor.id, target.id);
    if (request) deleteFollowRequest(deps.db, request.id);
    return { follow, request };
  });
  if (removed.follow) {
    deps.events.emit('follow.deleted', { followId: removed.follow.id, accountId: actor.id, targetAccountId: target.id });
  }
  if (removed.request) {
    deps.events.emit('follow_request.deleted', { followRequestId: removed.request.id, accountId: actor.id, targetAccountId: target.id });
  }
}
