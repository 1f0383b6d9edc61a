import { presentAccounts } from '../../core/accounts/views.js';
import { endorseAccount, listEndorsements, setAccountNote, unendorseAccount } from '../../core/relationships/endorsements.js';
import { loadRelationship } from '../../core/relationships/relationships.js';
import { toMastodonRelationship } from '../../serializers/relationship.js';
import { parsePage, setLinkHeader } from '../middleware/pagination.js';
import { parse, str, z } from '../params.js';
import type { Ctx, Routes, UserCtx } from '../routes.js';
import { accountIdParam } from './follows.js';

const noteSchema = z.object({ comment: str() });

/** Answers with the viewer's relationship to the account of the path, after an action. */
function relationshipAfter(ctx: UserCtx, action: (id: string) => void) {
  const id = accountIdParam(ctx);
  action(id);
  return toMastodonRelationship(loadRelationship(ctx.deps, ctx.account.id, id));
}

function endorsementList(ctx: Ctx, ownerId: string) {
  const page = listEndorsements(ctx.deps, ownerId, ctx.auth?.account?.id ?? null, parsePage(ctx.input, 40, 80));
  setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, page.cursors);
  return presentAccounts(ctx.deps, page.accountIds);
}

/**
 * Endorsements (featured accounts: /endorse and /unendorse, and the older /pin and /unpin, which
 * Mastodon keeps as aliases), the lists of endorsed accounts, and private notes on accounts.
 */
export function register(r: Routes): void {
  const endorse = (ctx: UserCtx) => relationshipAfter(ctx, (id) => endorseAccount(ctx.deps, ctx.account, id));
  const unendorse = (ctx: UserCtx) => relationshipAfter(ctx, (id) => unendorseAccount(ctx.deps, ctx.account, id));
  r.post('/api/v1/accounts/:id/endorse', 'user', ['write:accounts'], endorse);
  r.post('/api/v1/accounts/:id/unendorse', 'user', ['write:accounts'], unendorse);
  r.post('/api/v1/accounts/:id/pin', 'user', ['write:accounts'], endorse);
  r.post('/api/v1/accounts/:id/unpin', 'user', ['write:accounts'], unendorse);

  r.get('/api/v1/endorsements', 'user', ['read:accounts'], (ctx) => endorsementList(ctx, ctx.account.id));
  r.get('/api/v1/accounts/:id/endorsements', 'public', ['read:accounts'], (ctx) => endorsementList(ctx, accountIdParam(ctx)));

  r.post('/api/v1/accounts/:id/note', 'user', ['write:accounts'], (ctx) => {
    const p = parse(noteSchema, ctx.input);
    return relationshipAfter(ctx, (id) => setAccountNote(ctx.deps, ctx.account, id, p.comment));
  });
}
