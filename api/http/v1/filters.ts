import { createV1Filter, deleteV1Filter, getV1Filter, listV1Filters, updateV1Filter, type V1Filter, type V1FilterInput } from '../../core/filters/v1.js';
import { toMastodonV1Filter, type MastodonV1Filter } from '../../serializers/filter.js';
import { arrayOf, bool, parse, str, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';
import { expiresIn, pathId } from '../v2/filters.js';

const READ = ['read:filters'];
const WRITE = ['write:filters'];

const v1Params = z.object({
  phrase: str(),
  context: arrayOf(z.string()),
  irreversible: bool(),
  whole_word: bool(),
  expires_in: expiresIn,
});

function v1Input(ctx: Ctx): V1FilterInput {
  const p = parse(v1Params, ctx.input);
  return { phrase: p.phrase, context: p.context, irreversible: p.irreversible, whole_word: p.whole_word, expires_in: p.expires_in };
}

function present(f: V1Filter): MastodonV1Filter {
  return toMastodonV1Filter(f.keyword, f.filter);
}

/**
 * Filters v1 (deprecated, kept for older clients): each v1 filter is one keyword of a v2 filter,
 * its id the keyword's id. read:filters reads, write:filters changes.
 */
export function register(r: Routes): void {
  r.get('/api/v1/filters', 'user', READ, (ctx) => listV1Filters(ctx.deps, ctx.account.id).map(present));
  r.post('/api/v1/filters', 'user', WRITE, (ctx) => present(createV1Filter(ctx.deps, ctx.account.id, v1Input(ctx))));
  r.get('/api/v1/filters/:id', 'user', READ, (ctx) => present(getV1Filter(ctx.deps, ctx.account.id, pathId(ctx))));
  r.put('/api/v1/filters/:id', 'user', WRITE, (ctx) => present(updateV1Filter(ctx.deps, ctx.account.id, pathId(ctx), v1Input(ctx))));
  r.delete('/api/v1/filters/:id', 'user', WRITE, (ctx) => {
    deleteV1Filter(ctx.deps, ctx.account.id, pathId(ctx));
    return {};
  });
}
