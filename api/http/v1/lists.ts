import { presentAccounts } from '../../core/accounts/views.js';
import {
  addListAccounts,
  createList,
  deleteList,
  getList,
  listAccountIds,
  listLists,
  listsContainingAccount,
  removeListAccounts,
  updateList,
  type ListInput,
} from '../../core/lists/manage.js';
import { readListTimeline } from '../../core/lists/timeline.js';
import { toMastodonList } from '../../serializers/list.js';
import { notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import { arrayOf, bool, parse, str, z } from '../params.js';
import type { Routes, UserCtx } from '../routes.js';
import { sendStatusPage } from './timelines.js';

const READ = ['read:lists'];
const WRITE = ['write:lists'];

const listParams = z.object({ title: str(), replies_policy: str(), exclusive: bool() });
const accountIdsParams = z.object({ account_ids: arrayOf(z.union([z.string(), z.number()]).transform(String)) });

/** The `:id` path parameter; an id that cannot exist is simply not found. */
function pathId(ctx: UserCtx): string {
  const id = String(ctx.req.params.id ?? '');
  if (!isId(id)) throw notFound();
  return id;
}

function listInput(ctx: UserCtx): ListInput {
  const p = parse(listParams, ctx.input);
  return { title: p.title, replies_policy: p.replies_policy, exclusive: p.exclusive };
}

function accountIds(ctx: UserCtx): string[] {
  return parse(accountIdsParams, ctx.input).account_ids ?? [];
}

// The members listing is paged as Mastodon pages it: 40 by default, 80 at most, with Link headers;
// only limit=0 means every member whatever else is given, with no Link header (its `unlimited?`).
function wantsPage(input: Record<string, unknown>): boolean {
  return String(input.limit) !== '0';
}

/**
 * Lists: the user's lists (not paginated), one list, create, update, delete, the members (paged,
 * or all of them with `limit=0`), adding and removing members, and the user's lists that contain an
 * account. read:lists reads, write:lists changes; another user's list is 404.
 */
export function register(r: Routes): void {
  r.get('/api/v1/lists', 'user', READ, (ctx) => listLists(ctx.deps, ctx.account.id).map(toMastodonList));

  r.post('/api/v1/lists', 'user', WRITE, (ctx) => toMastodonList(createList(ctx.deps, ctx.account.id, listInput(ctx))));

  r.get('/api/v1/lists/:id', 'user', READ, (ctx) => toMastodonList(getList(ctx.deps, ctx.account.id, pathId(ctx))));

  r.put('/api/v1/lists/:id', 'user', WRITE, (ctx) => toMastodonList(updateList(ctx.deps, ctx.account.id, pathId(ctx), listInput(ctx))));

  r.delete('/api/v1/lists/:id', 'user', WRITE, (ctx) => {
    deleteList(ctx.deps, ctx.account.id, pathId(ctx));
    return {};
  });

  r.get('/api/v1/lists/:id/accounts', 'user', READ, (ctx) => {
    const listId = pathId(ctx);
    if (!wantsPage(ctx.input)) return presentAccounts(ctx.deps, listAccountIds(ctx.deps, ctx.account.id, listId, null));
    const page = parsePage(ctx.input, 40, 80);
    const ids = listAccountIds(ctx.deps, ctx.account.id, listId, page);
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(ids, (id) => id));
    return presentAccounts(ctx.deps, ids);
  });

  r.post('/api/v1/lists/:id/accounts', 'user', WRITE, (ctx) => {
    const listId = pathId(ctx);
    const ids = accountIds(ctx);
    // An id that cannot exist names no account: 404, as for an unknown one.
    if (ids.some((id) => !isId(id))) throw notFound();
    addListAccounts(ctx.deps, ctx.account.id, listId, ids);
    return {};
  });

  r.delete('/api/v1/lists/:id/accounts', 'user', WRITE, (ctx) => {
    removeListAccounts(ctx.deps, ctx.account.id, pathId(ctx), accountIds(ctx).filter(isId));
    return {};
  });

  // The list timeline: the list's members' statuses, paged like the other timelines (404 for a
  // list that is not the viewer's).
  r.get('/api/v1/timelines/list/:list_id', 'user', READ, (ctx) => {
    const listId = String(ctx.req.params.list_id ?? '');
    if (!isId(listId)) throw notFound();
    sendStatusPage(ctx, ctx.account.id, () => {
      const result = readListTimeline(ctx.deps, ctx.account.id, listId, parsePage(ctx.input));
      return { status: 200, ids: result.ids, cursors: pageCursors(result.pageIds, (id) => id) };
    });
  });

  r.get('/api/v1/accounts/:id/lists', 'user', READ, (ctx) => listsContainingAccount(ctx.deps, ctx.account.id, pathId(ctx)).map(toMastodonList));
}
