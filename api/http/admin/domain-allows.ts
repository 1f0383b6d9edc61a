import { createDomainAllow, deleteDomainAllow, listDomainAllows, showDomainAllow } from '../../core/admin/domain-allows.js';
import { PERMISSION } from '../../util/permissions.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import { parse, str, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';
import { recordId, requireStaff } from './staff.js';

const READ = ['admin:read:domain_allows'];
const WRITE = ['admin:write:domain_allows'];

const allowSchema = z.object({ domain: str() });

const staff = (ctx: Ctx) => requireStaff(ctx, PERMISSION.manageFederation);

/**
 * `/api/v1/admin/domain_allows` (manage_federation): the allow list, the same one as `hearth
 * domain allow` (once any domain is allowed, only allowed domains federate). Allowing a domain
 * already allowed answers its existing record.
 */
export function register(r: Routes): void {
  r.get('/api/v1/admin/domain_allows', 'public', READ, (ctx) => {
    staff(ctx);
    const allows = listDomainAllows(ctx.deps, parsePage(ctx.input, 100, 200));
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(allows, (a) => a.id));
    return allows;
  });
  r.get('/api/v1/admin/domain_allows/:id', 'public', READ, (ctx) => {
    staff(ctx);
    return showDomainAllow(ctx.deps, recordId(ctx));
  });
  r.post('/api/v1/admin/domain_allows', 'public', WRITE, (ctx) => {
    staff(ctx);
    return createDomainAllow(ctx.deps, parse(allowSchema, ctx.input).domain);
  });
  r.delete('/api/v1/admin/domain_allows/:id', 'public', WRITE, (ctx) => {
    staff(ctx);
    return deleteDomainAllow(ctx.deps, recordId(ctx));
  });
}
