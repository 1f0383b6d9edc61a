import { createDomainBlock, deleteDomainBlock, listDomainBlocks, showDomainBlock, updateDomainBlock } from '../../core/admin/domain-blocks.js';
import { PERMISSION } from '../../util/permissions.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import { bool, parse, str, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';
import { recordId, requireStaff } from './staff.js';

const READ = ['admin:read:domain_blocks'];
const WRITE = ['admin:write:domain_blocks'];

const blockSchema = z.object({
  domain: str(),
  severity: str(),
  reject_media: bool(),
  reject_reports: bool(),
  private_comment: str(),
  public_comment: str(),
  obfuscate: bool(),
});

const staff = (ctx: Ctx) => requireStaff(ctx, PERMISSION.manageFederation);

/**
 * `/api/v1/admin/domain_blocks` (manage_federation): the instance's domain blocks, the same rule
 * set as `hearth domain block`. A conflicting block is 422 with `existing_domain_block`.
 */
export function register(r: Routes): void {
  r.get('/api/v1/admin/domain_blocks', 'public', READ, (ctx) => {
    staff(ctx);
    const blocks = listDomainBlocks(ctx.deps, parsePage(ctx.input, 100, 200));
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(blocks, (b) => b.id));
    return blocks;
  });
  r.get('/api/v1/admin/domain_blocks/:id', 'public', READ, (ctx) => {
    staff(ctx);
    return showDomainBlock(ctx.deps, recordId(ctx));
  });
  r.post('/api/v1/admin/domain_blocks', 'public', WRITE, (ctx) => {
    staff(ctx);
    return createDomainBlock(ctx.deps, parse(blockSchema, ctx.input));
  });
  r.put('/api/v1/admin/domain_blocks/:id', 'public', WRITE, (ctx) => {
    staff(ctx);
    const id = recordId(ctx);
    const { domain: _ignored, ...params } = parse(blockSchema, ctx.input);
    return updateDomainBlock(ctx.deps, id, params);
  });
  r.delete('/api/v1/admin/domain_blocks/:id', 'public', WRITE, (ctx) => {
    staff(ctx);
    deleteDomainBlock(ctx.deps, recordId(ctx));
    return {};
  });
}
