import { createEmailDomainBlock, deleteEmailDomainBlock, listEmailDomainBlocks, showEmailDomainBlock } from '../../core/admin/email-blocks.js';
import { PERMISSION } from '../../util/permissions.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import { parse, str, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';
import { recordId, requireStaff } from './staff.js';

const READ = ['admin:read:email_domain_blocks'];
const WRITE = ['admin:write:email_domain_blocks'];

const blockSchema = z.object({ domain: str() });

const staff = (ctx: Ctx) => requireStaff(ctx, PERMISSION.manageBlocks);

/** `/api/v1/admin/email_domain_blocks` (manage_blocks): e-mail domains refused at sign-up. */
export function register(r: Routes): void {
  r.get('/api/v1/admin/email_domain_blocks', 'public', READ, (ctx) => {
    staff(ctx);
    const blocks = listEmailDomainBlocks(ctx.deps, parsePage(ctx.input, 100, 200));
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(blocks, (b) => b.id));
    return blocks;
  });
  r.get('/api/v1/admin/email_domain_blocks/:id', 'public', READ, (ctx) => {
    staff(ctx);
    return showEmailDomainBlock(ctx.deps, recordId(ctx));
  });
  r.post('/api/v1/admin/email_domain_blocks', 'public', WRITE, (ctx) => {
    staff(ctx);
    return createEmailDomainBlock(ctx.deps, parse(blockSchema, ctx.input).domain);
  });
  r.delete('/api/v1/admin/email_domain_blocks/:id', 'public', WRITE, (ctx) => {
    staff(ctx);
    deleteEmailDomainBlock(ctx.deps, recordId(ctx));
    return {};
  });
}
