import { getContext } from '../../core/statuses/context.js';
import type { NewStatusParams } from '../../core/statuses/create.js';
import { deleteStatus } from '../../core/statuses/delete.js';
import { editStatus, type EditStatusParams } from '../../core/statuses/edit.js';
import { postStatus } from '../../core/statuses/post.js';
import { getStatus, getStatuses, getStatusHistory, loadOwnStatus } from '../../core/statuses/read.js';
import { presentStatus } from '../../core/statuses/views.js';
import { validatePollParams } from '../../core/polls/create.js';
import { parseScheduledAt } from '../../core/scheduled/schedule.js';
import { toMastodonStatusEdit } from '../../serializers/status-edit.js';
import { toMastodonStatusSource } from '../../serializers/status.js';
import { QUOTED_STATUS_NOT_FOUND } from '../../core/statuses/quotes.js';
import { ApiError, notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import { arrayOf, bool, id, parse, str, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';

/** Most distinct ids `GET /api/v1/statuses?id[]=` takes (Mastodon's DEFAULT_STATUSES_LIMIT). */
const STATUSES_PER_REQUEST = 20;

/** The status id of the path; anything that cannot be an id is simply not found, as in Mastodon. */
function pathId(ctx: Ctx): string {
  const value = String(ctx.req.params.id ?? '');
  if (!isId(value)) throw notFound();
  return value;
}

function viewerOf(ctx: Ctx): string | null {
  return ctx.auth?.account?.id ?? null;
}

/** `poll` given with any content (clients send null or '' for none). */
function pollOf(input: Record<string, unknown>): ReturnType<typeof validatePollParams> | null {
  const raw = input.poll;
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw === 'object' && !Array.isArray(raw) && Object.keys(raw).length === 0) return null;
  return validatePollParams(raw);
}

/** in_reply_to_id: blank means none; something that cannot be an id names no status (404). */
function replyIdOf(input: Record<string, unknown>): string | null {
  const raw = input.in_reply_to_id;
  if (raw === undefined || raw === null || raw === '') return null;
  const value = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
  if (!isId(value)) throw notFound();
  return value;
}

/** quoted_status_id: blank means none; something that cannot be an id names nothing (Mastodon's 404). */
function quotedIdOf(input: Record<string, unknown>): string | null {
  const raw = input.quoted_status_id;
  if (raw === undefined || raw === null || raw === '') return null;
  const value = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
  if (!isId(value)) throw new ApiError(404, QUOTED_STATUS_NOT_FOUND);
  return value;
}

const statusFields = z.object({
  status: str(),
  media_ids: arrayOf(id()),
  sensitive: bool(),
  spoiler_text: str(),
  visibility: str(),
  language: str(),
  scheduled_at: str(),
  allowed_mentions: arrayOf(z.union([z.string(), z.number()]).transform(String)),
  quote_approval_policy: str(),
});

const mediaAttribute = z.object({
  id: id(),
  description: str(),
  focus: str(),
});

const editFields = z.object({
  status: str(),
  media_ids: arrayOf(id()),
  media_attributes: arrayOf(mediaAttribute),
  sensitive: bool(),
  spoiler_text: str(),
  language: str(),
  quote_approval_policy: str(),
});

/**
 * The statuses API: post (quotes included), read one or many, edit, delete (with redraft data),
 * history, source, context. The quote methods are in quotes.ts.
 */
export function register(r: Routes): void {
  r.post('/api/v1/statuses', 'user', ['write:statuses'], (ctx) => {
    const input = parse(statusFields, ctx.input);
    const params: NewStatusParams = {
      text: input.status ?? null,
      media_ids: input.media_ids ?? null,
      poll: pollOf(ctx.input),
      sensitive: input.sensitive ?? null,
      spoiler_text: input.spoiler_text ?? null,
      visibility: input.visibility || null,
      language: input.language || null,
      in_reply_to_id: replyIdOf(ctx.input),
      quoted_status_id: quotedIdOf(ctx.input),
      quote_approval_policy: input.quote_approval_policy || null,
    };
    const scheduledAt = input.scheduled_at ? parseScheduledAt(input.scheduled_at) : null;
    const result = postStatus(ctx.deps, ctx.account, ctx.user, params, {
      idempotencyKey: ctx.req.get('idempotency-key') ?? null,
      scheduledAt,
      applicationId: ctx.auth.applicationId,
      allowedMentions: input.allowed_mentions ?? null,
    });
    return result.kind === 'status' ? result.status : result.scheduled;
  });

  r.get('/api/v1/statuses', 'public', ['read:statuses'], (ctx) => {
    const raw = parse(z.object({ id: arrayOf(z.unknown()) }), ctx.input).id ?? [];
    const given = raw.map((v) => (typeof v === 'number' ? String(v) : v));
    // More distinct ids than a page of statuses (20) is refused, in Mastodon's words: its
    // controller raises a bare Mastodon::ValidationError, whose message is its class name.
    if (new Set(given.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))).size > STATUSES_PER_REQUEST) {
      throw new ApiError(422, 'Mastodon::ValidationError');
    }
    // Ids that cannot exist are skipped like missing ones.
    return getStatuses(ctx.deps, given.filter(isId), viewerOf(ctx));
  });

  r.get('/api/v1/statuses/:id', 'public', ['read:statuses'], (ctx) => getStatus(ctx.deps, pathId(ctx), viewerOf(ctx)));

  r.put('/api/v1/statuses/:id', 'user', ['write:statuses'], (ctx) => {
    const statusId = pathId(ctx);
    // Not yours or missing answers 404 before any validation, as Mastodon does.
    loadOwnStatus(ctx.deps, statusId, ctx.account.id);
    const input = parse(editFields, ctx.input);
    const params: EditStatusParams = {
      text: input.status ?? null,
      spoiler_text: input.spoiler_text ?? null,
      sensitive: input.sensitive ?? null,
      language: input.language || null,
      media_ids: input.media_ids ?? null,
      media_attributes: input.media_attributes ?? null,
      poll: pollOf(ctx.input),
      quote_approval_policy: input.quote_approval_policy || null,
    };
    editStatus(ctx.deps, ctx.account, ctx.user, statusId, params);
    const entity = presentStatus(ctx.deps, statusId, ctx.account.id);
    if (!entity) throw notFound();
    return entity;
  });

  r.delete('/api/v1/statuses/:id', 'user', ['write:statuses'], (ctx) => {
    const { delete_media } = parse(z.object({ delete_media: bool() }), ctx.input);
    return deleteStatus(ctx.deps, ctx.account.id, pathId(ctx), { deleteMedia: delete_media ?? false });
  });

  r.get('/api/v1/statuses/:id/history', 'public', ['read:statuses'], (ctx) =>
    getStatusHistory(ctx.deps, pathId(ctx), viewerOf(ctx)).map((v) => toMastodonStatusEdit(v, ctx.deps.uris)),
  );

  r.get('/api/v1/statuses/:id/source', 'user', ['read:statuses'], (ctx) =>
    toMastodonStatusSource(loadOwnStatus(ctx.deps, pathId(ctx), ctx.account.id)),
  );

  r.get('/api/v1/statuses/:id/context', 'public', ['read:statuses'], (ctx) => getContext(ctx.deps, pathId(ctx), viewerOf(ctx)));
}
