import { presentAccounts } from '../../core/accounts/views.js';
import { bookmarkStatus, unbookmarkStatus } from '../../core/interactions/bookmarks.js';
import { muteConversation, unmuteConversation } from '../../core/interactions/conversation-mutes.js';
import { favouriteStatus, unfavouriteStatus } from '../../core/interactions/favourites.js';
import { pinStatus, unpinStatus } from '../../core/interactions/pins.js';
import { reblogStatus, unreblogStatus, type ReblogVisibility } from '../../core/interactions/reblogs.js';
import { favouritedBy, rebloggedBy, type ActorPage } from '../../core/interactions/who.js';
import { presentStatus } from '../../core/statuses/views.js';
import { ApiError, notFound } from '../../util/errors.js';
import { parsePage, setLinkHeader } from '../middleware/pagination.js';
import type { Ctx, Routes } from '../routes.js';

const REBLOG_VISIBILITIES: readonly string[] = ['public', 'unlisted', 'private'];

/** Answers with one status as the viewer now sees it (flags updated by the action just done). */
function answer(ctx: Ctx, statusId: string, viewerAccountId: string) {
  const status = presentStatus(ctx.deps, statusId, viewerAccountId);
  if (!status) throw notFound();
  return status;
}

function pathId(ctx: Ctx): string {
  return String(ctx.req.params.id ?? '');
}

function reblogVisibility(input: Record<string, unknown>): ReblogVisibility | undefined {
  const v = input.visibility;
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !REBLOG_VISIBILITIES.includes(v)) {
    const description = 'is not included in the list';
    throw new ApiError(422, `Validation failed: Visibility ${description}`, { extra: { details: { visibility: [{ error: 'ERR_INCLUSION', description }] } } });
  }
  return v as ReblogVisibility;
}

function actorList(ctx: Ctx, page: ActorPage) {
  setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, page.cursors);
  return presentAccounts(ctx.deps, page.accountIds);
}

/**
 * What a user does to a status: favourite, reblog (boost), bookmark, mute its conversation, pin
 * it; and who reblogged or favourited it. Every action answers with the Status as the caller now
 * sees it (for a reblog: the reblog, wrapping the original).
 */
export function register(r: Routes): void {
  r.post('/api/v1/statuses/:id/favourite', 'user', ['write:favourites'], (ctx) =>
    answer(ctx, favouriteStatus(ctx.deps, ctx.account, pathId(ctx)), ctx.account.id),
  );
  r.post('/api/v1/statuses/:id/unfavourite', 'user', ['write:favourites'], (ctx) =>
    answer(ctx, unfavouriteStatus(ctx.deps, ctx.account, pathId(ctx)), ctx.account.id),
  );

  r.post('/api/v1/statuses/:id/reblog', 'user', ['write:statuses'], (ctx) => {
    const visibility = reblogVisibility(ctx.input);
    const id = reblogStatus(ctx.deps, ctx.account, ctx.user, pathId(ctx), visibility, ctx.auth.applicationId);
    return answer(ctx, id, ctx.account.id);
  });
  r.post('/api/v1/statuses/:id/unreblog', 'user', ['write:statuses'], (ctx) =>
    answer(ctx, unreblogStatus(ctx.deps, ctx.account, pathId(ctx)), ctx.account.id),
  );

  r.post('/api/v1/statuses/:id/bookmark', 'user', ['write:bookmarks'], (ctx) =>
    answer(ctx, bookmarkStatus(ctx.deps, ctx.account, pathId(ctx)), ctx.account.id),
  );
  r.post('/api/v1/statuses/:id/unbookmark', 'user', ['write:bookmarks'], (ctx) =>
    answer(ctx, unbookmarkStatus(ctx.deps, ctx.account, pathId(ctx)), ctx.account.id),
  );

  r.post('/api/v1/statuses/:id/mute', 'user', ['write:mutes'], (ctx) =>
    answer(ctx, muteConversation(ctx.deps, ctx.account, pathId(ctx)), ctx.account.id),
  );
  r.post('/api/v1/statuses/:id/unmute', 'user', ['write:mutes'], (ctx) =>
    answer(ctx, unmuteConversation(ctx.deps, ctx.account, pathId(ctx)), ctx.account.id),
  );

  r.post('/api/v1/statuses/:id/pin', 'user', ['write:accounts'], (ctx) =>
    answer(ctx, pinStatus(ctx.deps, ctx.account, pathId(ctx)), ctx.account.id),
  );
  r.post('/api/v1/statuses/:id/unpin', 'user', ['write:accounts'], (ctx) =>
    answer(ctx, unpinStatus(ctx.deps, ctx.account, pathId(ctx)), ctx.account.id),
  );

  // Public for visible statuses; a token, if given, must carry read (Mastodon checks
  // read:accounts, its documentation says read:statuses: either is accepted).
  r.get('/api/v1/statuses/:id/reblogged_by', 'public', ['read:statuses', 'read:accounts'], (ctx) =>
    actorList(ctx, rebloggedBy(ctx.deps, pathId(ctx), ctx.auth?.account?.id ?? null, parsePage(ctx.input, 40, 80))),
  );
  r.get('/api/v1/statuses/:id/favourited_by', 'public', ['read:statuses', 'read:accounts'], (ctx) =>
    actorList(ctx, favouritedBy(ctx.deps, pathId(ctx), ctx.auth?.account?.id ?? null, parsePage(ctx.input, 40, 80))),
  );
}
