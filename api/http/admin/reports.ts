import {
  assignAdminReport,
  listAdminReports,
  reopenAdminReport,
  resolveAdminReport,
  showAdminReport,
  unassignAdminReport,
  updateAdminReport,
} from '../../core/admin/reports.js';
import { PERMISSION } from '../../util/permissions.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import { arrayOf, bool, parse, str, z } from '../params.js';
import type { Ctx, Routes } from '../routes.js';
import { recordId, requireStaff } from './staff.js';

const READ = ['admin:read:reports'];
const WRITE = ['admin:write:reports'];

const listSchema = z.object({ resolved: bool(), account_id: str(), target_account_id: str() });
const updateSchema = z.object({ category: str(), rule_ids: arrayOf(z.union([z.string(), z.number().transform(String)])) });

const staff = (ctx: Ctx) => requireStaff(ctx, PERMISSION.manageReports);

/**
 * `/api/v1/admin/reports`: reports as staff handle them (manage_reports): the list (open ones, or
 * resolved with `resolved`; by reporter or target; paged with Link headers, 100 by default and
 * 200 at most), one report, its category and rules, assigning and resolving.
 */
export function register(r: Routes): void {
  r.get('/api/v1/admin/reports', 'public', READ, (ctx) => {
    staff(ctx);
    const p = parse(listSchema, ctx.input);
    const reports = listAdminReports(
      ctx.deps,
      { resolved: p.resolved === true, accountId: p.account_id || undefined, targetAccountId: p.target_account_id || undefined },
      parsePage(ctx.input, 100, 200),
    );
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(reports, (report) => report.id));
    return reports;
  });
  r.get('/api/v1/admin/reports/:id', 'public', READ, (ctx) => {
    staff(ctx);
    return showAdminReport(ctx.deps, recordId(ctx));
  });
  r.put('/api/v1/admin/reports/:id', 'public', WRITE, (ctx) => {
    staff(ctx);
    const id = recordId(ctx);
    const p = parse(updateSchema, ctx.input);
    return updateAdminReport(ctx.deps, id, { category: p.category, ruleIds: p.rule_ids });
  });
  r.post('/api/v1/admin/reports/:id/assign_to_self', 'public', WRITE, (ctx) => {
    const { account } = staff(ctx);
    return assignAdminReport(ctx.deps, recordId(ctx), account.id);
  });
  r.post('/api/v1/admin/reports/:id/unassign', 'public', WRITE, (ctx) => {
    staff(ctx);
    return unassignAdminReport(ctx.deps, recordId(ctx));
  });
  r.post('/api/v1/admin/reports/:id/resolve', 'public', WRITE, (ctx) => {
    const { account } = staff(ctx);
    return resolveAdminReport(ctx.deps, recordId(ctx), account.id);
  });
  r.post('/api/v1/admin/reports/:id/reopen', 'public', WRITE, (ctx) => {
    staff(ctx);
    return reopenAdminReport(ctx.deps, recordId(ctx));
  });
}
