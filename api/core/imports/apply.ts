import type { AccountRow } from '../../db/repos/accounts.js';
import type { ImportType } from '../../db/repos/imports.js';
import { ApiError } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { bookmarkStatus } from '../interactions/bookmarks.js';
import { addListAccounts, createList, listLists } from '../lists/manage.js';
import { blockAccount, blockDomain } from '../relationships/blocks.js';
import { followAccount, SELF_FOLLOW_ERROR } from '../relationships/follows.js';
import { muteAccount } from '../relationships/mutes.js';
import type { ImportRowData } from './formats.js';
import type { RowFailure } from './targets.js';

/**
 * What one row of an import does, once what it names was found: the same core functions the REST
 * API calls (so a follow of a remote account federates, a block ends follows both ways, …), each
 * as Mastodon's importer uses them. Synchronous: the row is marked done in the same turn of the
 * event loop, so no row is done twice across a restart.
 */

/** What a row's target is, by type: an account, a post's id, or nothing (a domain). */
export type RowTarget = { account: AccountRow } | { statusId: string } | null;

/** The reason for a refusal (403) of a row's action, in words for the type. */
const NOT_ALLOWED: Record<ImportType, string> = {
  following: 'This account cannot be followed (a block between you, or it has moved)',
  lists: 'This account cannot be followed, so it cannot be in a list (a block between you, or it has moved)',
  blocks: 'This account cannot be blocked',
  mutes: 'This account cannot be muted',
  domain_blocks: 'This domain cannot be blocked',
  bookmarks: 'This post cannot be bookmarked',
};

/** A row failure for an error a core function threw; anything but a refusal of the request is passed on. */
function failureOf(type: ImportType, err: unknown): RowFailure {
  if (!(err instanceof ApiError)) throw err;
  if (err.status === 403) return { reason: 'not_allowed', message: err.message === SELF_FOLLOW_ERROR ? 'This is your own account' : NOT_ALLOWED[type] };
  if (err.status === 404) {
    return type === 'bookmarks' ? { reason: 'status_not_found', message: 'The post is gone, or you may not see it' } : { reason: 'account_not_found', message: 'The account is gone' };
  }
  if (err.status === 422) return { reason: 'invalid', message: err.message.replace(/^Validation failed: /, '') };
  throw err;
}

function ownAccount(target: RowTarget, me: AccountRow): boolean {
  return target !== null && 'account' in target && target.account.id === me.id;
}

/** Adds `target` to the list titled `title` (made if missing), following it first as Mastodon does. */
function addToList(deps: Deps, me: AccountRow, title: string, target: AccountRow): RowFailure | null {
  let list = listLists(deps, me.id).find((l) => l.title === title);
  if (!list) {
    try {
      list = createList(deps, me.id, { title });
    } catch (err) {
      if (err instanceof ApiError && err.status === 422 && /maximum number of lists/.test(err.message)) {
        return { reason: 'limit_reached', message: `The list "${title}" could not be made: you have the most lists one may have` };
      }
      throw err;
    }
  }
  if (target.id !== me.id) followAccount(deps, me, target.id);
  try {
    addListAccounts(deps, me.id, list.id, [target.id]);
  } catch (err) {
    // Already a member: what the row asks for is so.
    if (!(err instanceof ApiError && err.status === 422)) throw err;
  }
  return null;
}

/**
 * Does one row: null when done, or why it could not be. Errors other than a refusal of the action
 * (403, 404, 422) are thrown: the job logs them and marks the row failed.
 */
export function applyRow(deps: Deps, type: ImportType, me: AccountRow, data: ImportRowData, target: RowTarget): RowFailure | null {
  if (type !== 'lists' && type !== 'domain_blocks' && type !== 'bookmarks' && ownAccount(target, me)) {
    return { reason: 'not_allowed', message: 'This is your own account' };
  }
  try {
    if (type === 'domain_blocks') {
      blockDomain(deps, me, data.domain);
      return null;
    }
    if (target === null) throw new Error(`an import row of type ${type} needs a target`);
    if ('statusId' in target) {
      bookmarkStatus(deps, me, target.statusId);
      return null;
    }
    const account = target.account;
    switch (type) {
      case 'following':
        followAccount(deps, me, account.id, { reblogs: data.show_reblogs ?? undefined, notify: data.notify ?? undefined, languages: data.languages ?? undefined });
        return null;
      case 'blocks':
        blockAccount(deps, me, account.id);
        return null;
      case 'mutes':
        muteAccount(deps, me, account.id, { notifications: data.hide_notifications ?? undefined });
        return null;
      case 'lists':
        return addToList(deps, me, data.list ?? '', account);
      default:
        throw new Error(`an import of type ${type} has no account rows`);
    }
  } catch (err) {
    return failureOf(type, err);
  }
}
