import type { PageBounds } from '../../db/paging.js';
import { findAccountById, findAccountsByIds } from '../../db/repos/accounts.js';
import { followRequestsOf, followsOf } from '../../db/repos/follows.js';
import {
  countListsOwnedBy,
  deleteList as deleteListRow,
  deleteListAccounts,
  findOwnedList,
  insertList,
  insertListAccount,
  listMemberIds,
  listsOwnedBy,
  membersAmong,
  ownedListsContaining,
  updateList as updateListRow,
  type ListRow,
  type RepliesPolicy,
} from '../../db/repos/lists.js';
import { now } from '../../util/clock.js';
import { ApiError, notFound } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { charLength, isBlank, Problems } from '../filters/problems.js';

/** Lists one user may own (the spec's limit). */
export const MAX_LISTS_PER_USER = 50;
/** Longest list title accepted, in characters. */
export const LIST_TITLE_MAX = 256;

const POLICIES: readonly RepliesPolicy[] = ['followed', 'list', 'none'];

/** List attributes as a client sends them; absent ones keep their value (or take the default on create). */
export interface ListInput {
  title?: string | undefined;
  replies_policy?: string | undefined;
  exclusive?: boolean | undefined;
}

/** The lists `accountId` owns, oldest first (the listing is not paginated). */
export function listLists(deps: Deps, accountId: string): ListRow[] {
  return listsOwnedBy(deps.db, accountId);
}

/** One of the owner's lists; 404 when it does not exist or belongs to someone else. */
export function getList(deps: Deps, accountId: string, listId: string): ListRow {
  const list = findOwnedList(deps.db, accountId, listId);
  if (!list) throw notFound();
  return list;
}

// An unknown policy is refused before any other check, with the message Mastodon's enum gives.
function checkPolicy(value: string | undefined): RepliesPolicy | undefined {
  if (value === undefined) return undefined;
  if (!(POLICIES as readonly string[]).includes(value)) throw new ApiError(422, `'${value}' is not a valid replies_policy`);
  return value as RepliesPolicy;
}

function checkTitle(problems: Problems, title: string): void {
  if (isBlank(title)) problems.blank('title', 'Title');
  else if (charLength(title) > LIST_TITLE_MAX) problems.tooLong('title', 'Title', LIST_TITLE_MAX);
}

/**
 * Creates a list for `accountId`: a title is required, the replies policy defaults to `list`, and
 * an owner with 50 lists already is refused (422, nothing written).
 */
export function createList(deps: Deps, accountId: string, input: ListInput): ListRow {
  const policy = checkPolicy(input.replies_policy) ?? 'list';
  const title = input.title ?? '';
  const problems = new Problems();
  checkTitle(problems, title);
  problems.throwIfAny();
  const at = now();
  const row: ListRow = { id: newId(at), account_id: accountId, title, replies_policy: policy, exclusive: input.exclusive ? 1 : 0, created_at: at, updated_at: at };
  deps.db.transaction(() => {
    // Counted inside the transaction so that two concurrent creations cannot both pass at 50.
    if (countListsOwnedBy(deps.db, accountId) >= MAX_LISTS_PER_USER) {
      new Problems().add('base', '', 'ERR_LIMIT_REACHED', 'You have reached the maximum number of lists').throwIfAny();
    }
    insertList(deps.db, row);
  });
  return row;
}

/** Changes a list's title, replies policy or exclusive flag (absent attributes are kept). */
export function updateList(deps: Deps, accountId: string, listId: string, input: ListInput): ListRow {
  const list = getList(deps, accountId, listId);
  const policy = checkPolicy(input.replies_policy) ?? list.replies_policy;
  const title = input.title ?? list.title;
  const problems = new Problems();
  checkTitle(problems, title);
  problems.throwIfAny();
  const updated: ListRow = { ...list, title, replies_policy: policy, exclusive: input.exclusive === undefined ? list.exclusive : input.exclusive ? 1 : 0, updated_at: now() };
  updateListRow(deps.db, updated);
  return updated;
}

/** Deletes one of the owner's lists with its memberships. */
export function deleteList(deps: Deps, accountId: string, listId: string): void {
  const list = getList(deps, accountId, listId);
  deleteListRow(deps.db, list.id);
}

/**
 * Member account ids of one of the owner's lists, suspended accounts left out: all of them
 * without `page` (no mandatory pagination), or one page by account id.
 */
export function listAccountIds(deps: Deps, accountId: string, listId: string, page: PageBounds | null): string[] {
  const list = getList(deps, accountId, listId);
  return listMemberIds(deps.db, list.id, page);
}

/**
 * Adds accounts to one of the owner's lists, all or none, as Mastodon's ListAccount does it: an
 * unknown account is 404; then each account in the order given needs the owner's follow or
 * pending follow request (the owner themself excepted), else 404 ("Record not found", Mastodon's
 * failed lookup of the follow request), and must not be in the list already, else 422. The first
 * account that fails decides the answer, and nothing is written. A member added on a pending
 * request has no follow id until the request is accepted (see install.ts).
 */
export function addListAccounts(deps: Deps, accountId: string, listId: string, accountIds: readonly string[]): void {
  const list = getList(deps, accountId, listId);
  const ids = [...accountIds];
  if (ids.length === 0) return;
  const accounts = findAccountsByIds(deps.db, ids);
  if (ids.some((id) => !accounts.has(id))) throw notFound();
  const at = now();
  deps.db.transaction(() => {
    const follows = followsOf(deps.db, accountId, ids);
    const requests = followRequestsOf(deps.db, accountId, ids);
    const already = membersAmong(deps.db, list.id, ids);
    const seen = new Set<string>();
    for (const id of ids) {
      // Mastodon saves the members one by one inside a transaction: the first failure ends it.
      if (id !== accountId && !follows.has(id) && !requests.has(id)) throw notFound();
      if (already.has(id) || seen.has(id)) new Problems().add('account_id', 'Account', 'ERR_TAKEN', 'has already been taken').throwIfAny();
      seen.add(id);
    }
    for (const id of ids) insertListAccount(deps.db, { list_id: list.id, account_id: id, follow_id: follows.get(id)?.id ?? null, created_at: at });
  });
}

/** Removes accounts from one of the owner's lists; accounts that are not members are ignored. */
export function removeListAccounts(deps: Deps, accountId: string, listId: string, accountIds: readonly string[]): void {
  const list = getList(deps, accountId, listId);
  if (accountIds.length === 0) return;
  deleteListAccounts(deps.db, list.id, accountIds);
}

/**
 * The viewer's lists that contain `accountId` (GET /api/v1/accounts/:id/lists). An unknown account
 * is 404; a suspended one is in no list.
 */
export function listsContainingAccount(deps: Deps, viewerId: string, accountId: string): ListRow[] {
  const account = findAccountById(deps.db, accountId);
  if (!account) throw notFound();
  if (account.suspended_at !== null) return [];
  return ownedListsContaining(deps.db, viewerId, accountId);
}
