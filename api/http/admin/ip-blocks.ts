import { createIpBlock, deleteIpBlock, listIpBlocks, showIpBlock, updateIpBlock, type IpBlockParams } from '../../core/admin/ip-blocks.js';
import { PERMISSION } from '../../util/permissions.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import { int, parse, str, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';
import { recordId, requireStaff } from './staff.js';

const READ = ['admin:read:ip_blocks'];
const WRITE = ['admin:write:ip_blocks'];

// Seconds, at most a century; an empty value clears the expiry (Mastodon's `expires_in=`).
const blockSchema = z.object({ ip: str(), severity: str(), comment: str(), expires_in: int(1, 100 * 365 * 86_400) });

function blockParams(ctx: Ctx): IpBlockParams {
  const p = parse(blockSchema, ctx.input);
  const cleared = ctx.input.expires_in === '' || ctx.input.expires_in === null;
  return { ip: p.ip, severity: p.severity, comment: p.comment, expires_in: cleared ? null : p.expires_in };
}

const staff = (ctx: Ctx) => requireStaff(ctx, PERMISSION.manageBlocks);

/**
 * `/api/v1/admin/ip_blocks` (manage_blocks): address ranges refused at sign-up, made to wait for
 * approval, or refused everything. Blocks that expired are gone.
 */
export function register(r: Routes): void {
  r.get('/api/v1/admin/ip_blocks', 'public', READ, (ctx) => {
    staff(ctx);
    const blocks = listIpBlocks(ctx.deps, parsePage(ctx.input, 100, 200));
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(blocks, (b) => b.id));
    return blocks;
  });
  r.get('/api/v1/admin/ip_blocks/:id', 'public', READ, (ctx) => {
    staff(ctx);
    return showIpBlock(ctx.deps, recordId(ctx));
  });
  r.post('/api/v1/admin/ip_blocks', 'public', WRITE, (ctx) => {
    staff(ctx);
    return createIpBlock(ctx.deps, blockParams(ctx));
  });
  r.put('/api/v1/admin/ip_blocks/:id', 'public', WRITE, (ctx) => {
    staff(ctx);
    const id = recordId(ctx);
    return updateIpBlock(ctx.deps, id, blockParams(ctx));
  });
  r.delete('/api/v1/admin/ip_blocks/:id', 'public', WRITE, (ctx) => {
    staff(ctx);
    deleteIpBlock(ctx.deps, recordId(ctx));
    return {};
  });
}
