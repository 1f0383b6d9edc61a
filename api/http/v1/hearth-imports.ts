import { readFile } from 'node:fs/promises';
import { IMPORT_TYPES, invalidData, MAX_IMPORT_BYTES } from '../../core/imports/formats.js';
import { cancelImport, createImport, getImport, listImportFailures, listImports, toImportEntity } from '../../core/imports/manage.js';
import { scopeCovers } from '../../core/oauth/scopes.js';
import type { ImportType } from '../../core/imports/manage.js';
import { forbidden, notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import { limitParam, offsetParam } from '../limit.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import { setOffsetLinkHeader } from '../offset-links.js';
import { parse, z } from '../params.js';
import { Reply, type Ctx, type Routes, type UserCtx } from '../routes.js';

/** The scope an import of each type needs: the one its rows' actions need through the API. */
const WRITE_SCOPE: Record<ImportType, string> = {
  following: 'write:follows',
  lists: 'write:lists',
  blocks: 'write:blocks',
  mutes: 'write:mutes',
  domain_blocks: 'write:blocks',
  bookmarks: 'write:bookmarks',
};

/** Any one of these admits a request; the import's type then decides (see WRITE_SCOPE). */
const WRITE_SCOPES = [...new Set(Object.values(WRITE_SCOPE))];
const READ_SCOPES = WRITE_SCOPES.map((s) => s.replace(/^write:/, 'read:'));

const uploadSchema = z.object({
  // A string first: a missing type is "can't be blank", an unknown one "is not included in the list".
  type: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.string().pipe(z.enum(IMPORT_TYPES as [ImportType, ...ImportType[]]))),
  mode: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.enum(['merge', 'overwrite']).optional()),
});

function requireTypeScope(ctx: UserCtx, type: ImportType): void {
  if (!scopeCovers(ctx.auth.scopes, WRITE_SCOPE[type])) throw forbidden('This action is outside the authorized scopes');
}

function importId(ctx: Ctx): string {
  const id = ctx.input.id;
  if (typeof id !== 'string' || !isId(id)) throw notFound();
  return id;
}

/** The uploaded file's text: a multipart file `data`, or `data` as a string (JSON or form). */
async function fileText(ctx: Ctx): Promise<string> {
  const file = ctx.req.files?.data;
  let bytes: Buffer;
  if (file) {
    if (file.size > MAX_IMPORT_BYTES) throw invalidData(`is too large (maximum is ${MAX_IMPORT_BYTES / 1024 / 1024} MB)`, 'ERR_TOO_LONG');
    bytes = await readFile(file.path);
  } else if (typeof ctx.input.data === 'string' && ctx.input.data !== '') {
    bytes = Buffer.from(ctx.input.data, 'utf8');
    if (bytes.length > MAX_IMPORT_BYTES) throw invalidData(`is too large (maximum is ${MAX_IMPORT_BYTES / 1024 / 1024} MB)`, 'ERR_TOO_LONG');
  } else {
    throw invalidData("can't be blank", 'ERR_BLANK');
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalidData('is not a UTF-8 text file');
  }
}

/**
 * Hearth's own import of Mastodon's CSV files (Mastodon offers it on its settings pages only), for
 * moving house: `POST /api/hearth/imports` takes `type` (following, lists, blocks, mutes,
 * domain_blocks, bookmarks), `mode` (merge, the default, or overwrite: what the file does not name
 * is removed) and the file `data` (multipart, or the text as a JSON or form string); checks every
 * row (422, nothing stored, when the file cannot be right) and answers 202 with the import, which
 * a background job then works through. The list (newest first), one import's progress, the rows
 * that failed with why, and `DELETE` to cancel an unfinished one.
 */
export function register(r: Routes): void {
  r.post('/api/hearth/imports', 'user', WRITE_SCOPES, async (ctx) => {
    const p = parse(uploadSchema, ctx.input);
    requireTypeScope(ctx, p.type);
    const text = await fileText(ctx);
    const row = createImport(ctx.deps, ctx.account, { type: p.type, mode: p.mode ?? 'merge', text, localDomain: ctx.deps.uris.domain });
    return new Reply(202, toImportEntity(row));
  });

  r.get('/api/hearth/imports', 'user', READ_SCOPES, (ctx) => {
    const rows = listImports(ctx.deps, ctx.account.id, parsePage(ctx.input, 20, 40));
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(rows, (row) => row.id));
    return rows.map(toImportEntity);
  });

  r.get('/api/hearth/imports/:id', 'user', READ_SCOPES, (ctx) => toImportEntity(getImport(ctx.deps, ctx.account.id, importId(ctx))));

  r.get('/api/hearth/imports/:id/failures', 'user', READ_SCOPES, (ctx) => {
    const limit = limitParam(ctx.input, 100, 1000);
    const offset = offsetParam(ctx.input);
    const failures = listImportFailures(ctx.deps, ctx.account.id, importId(ctx), limit, offset);
    setOffsetLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, { offset, limit, count: failures.length });
    return failures;
  });

  r.delete('/api/hearth/imports/:id', 'user', WRITE_SCOPES, (ctx) => {
    const id = importId(ctx);
    requireTypeScope(ctx, getImport(ctx.deps, ctx.account.id, id).type);
    return toImportEntity(cancelImport(ctx.deps, ctx.account.id, id));
  });
}
