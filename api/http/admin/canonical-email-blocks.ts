import {
  createCanonicalEmailBlock,
  deleteCanonicalEmailBlock,
  listCanonicalEmailBlocks,
  showCanonicalEmailBlock,
  testCanonicalEmailBlocks,
} from '../../core/admin/email-blocks.js';
import { PERMISSION } from '../../util/permissions.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import { parse, required, str, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';
import { recordId, requireStaff } from './staff.js';

const READ = ['admin:read:canonical_email_blocks'];
const WRITE = ['admin:write:canonical_email_blocks'];

const blockSchema = z.object({ email: str(), canonical_email_hash: str() });

const staff = (ctx: Ctx) => requireStaff(ctx, PERMISSION.manageBlocks);

/**
 * `/api/v1/admin/canonical_email_blocks` (manage_blocks): addresses refused at sign-up whatever
 * their dots and +tags, and `test`, which tells the blocks an address matches (a read, though a
 * POST: it takes the address in the body).
 */
export function register(r: Routes): void {
  r.get('/api/v1/admin/canonical_email_blocks', 'public', READ, (ctx) => {
    staff(ctx);
    const blocks = listCanonicalEmailBlocks(ctx.deps, parsePage(ctx.input, 100, 200));
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(blocks, (b) => b.id));
    return blocks;
  });
  // Before `/:id`, which would take `test` for an id.
  r.post('/api/v1/admin/canonical_email_blocks/test', 'public', READ, (ctx) => {
    staff(ctx);
    // Mastodon fails with a 500 without an address; a missing parameter is a 400 here.
    return testCanonicalEmailBlocks(ctx.deps, required(parse(blockSchema, ctx.input).email, 'email'));
  });
  r.get('/api/v1/admin/canonical_email_blocks/:id', 'public', READ, (ctx) => {
    staff(ctx);
    return showCanonicalEmailBlock(ctx.deps, recordId(ctx));
  });
  r.post('/api/v1/admin/canonical_email_blocks', 'public', WRITE, (ctx) => {
    staff(ctx);
    return createCanonicalEmailBlock(ctx.deps, parse(blockSchema, ctx.input));
  });
  r.delete('/api/v1/admin/canonical_email_blocks/:id', 'public', WRITE, (ctx) => {
    staff(ctx);
    deleteCanonicalEmailBlock(ctx.deps, recordId(ctx));
    return {};
  });
}
