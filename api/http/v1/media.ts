import { deleteOwnMedia, getOwnMedia, presentMedia, updateOwnMedia } from '../../core/media/manage.js';
import { uploadMedia } from '../../core/media/upload.js';
import { ApiError, notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import { parse, str, z } from '../params.js';
import { Reply, type Ctx, type Routes, type UserCtx } from '../routes.js';

/**
 * The media API: uploads (v1 answers once processed; v2 answers 202 while audio and video are
 * processed in the background), reading an upload's progress (206 while processing), changing its
 * description, focal point and thumbnail, and deleting an unattached upload.
 */

const fields = z.object({ description: str(), focus: str() });

function pathId(ctx: Ctx): string {
  const value = String(ctx.req.params.id ?? '');
  if (!isId(value)) throw notFound();
  return value;
}

function fileOf(ctx: Ctx, name: string): { path: string; size: number } | null {
  const file = ctx.req.files?.[name];
  return file ? { path: file.path, size: file.size } : null;
}

async function upload(ctx: UserCtx, background: boolean): Promise<unknown> {
  const p = parse(fields, ctx.input);
  const file = fileOf(ctx, 'file');
  if (!file) throw new ApiError(422, "Validation failed: File can't be blank");
  const result = await uploadMedia(ctx.deps, ctx.account, file, { description: p.description, focus: p.focus, thumbnail: fileOf(ctx, 'thumbnail') }, { background });
  const entity = presentMedia(ctx.deps, result.media);
  return result.processing ? new Reply(202, entity) : entity;
}

/** Registers the media routes. */
export function register(r: Routes): void {
  r.post('/api/v1/media', 'user', ['write:media'], (ctx) => upload(ctx, false));
  r.post('/api/v2/media', 'user', ['write:media'], (ctx) => upload(ctx, true));

  r.get('/api/v1/media/:id', 'user', ['write:media'], (ctx) => {
    const { media, state } = getOwnMedia(ctx.deps, ctx.account.id, pathId(ctx));
    if (state === 'failed') throw new ApiError(422, 'Error processing thumbnail for uploaded media');
    const entity = presentMedia(ctx.deps, media);
    return state === 'processing' ? new Reply(206, entity) : entity;
  });

  r.put('/api/v1/media/:id', 'user', ['write:media'], async (ctx) => {
    const id = pathId(ctx);
    const p = parse(fields, ctx.input);
    const media = await updateOwnMedia(ctx.deps, ctx.account.id, id, { description: p.description, focus: p.focus, thumbnail: fileOf(ctx, 'thumbnail') });
    const { state } = getOwnMedia(ctx.deps, ctx.account.id, id);
    const entity = presentMedia(ctx.deps, media);
    return state === 'processing' ? new Reply(206, entity) : entity;
  });

  r.delete('/api/v1/media/:id', 'user', ['write:media'], async (ctx) => {
    await deleteOwnMedia(ctx.deps, ctx.account.id, pathId(ctx));
    return {};
  });
}
