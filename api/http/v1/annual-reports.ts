import { generateReport, listReports, markReportRead, reportState, showReport } from '../../core/annual-reports/reports.js';
import type { Routes, UserCtx } from '../routes.js';

function year(ctx: UserCtx): string {
  return String(ctx.req.params.year ?? '');
}

/**
 * Annual reports ("Wrapstodon"): the user's unread reports, one year's report, its state, marking
 * it read, and generating it (at once, so never 202).
 */
export function register(r: Routes): void {
  r.get('/api/v1/annual_reports', 'user', ['read:accounts'], (ctx) => listReports(ctx.deps, ctx.account.id));
  r.get('/api/v1/annual_reports/:year', 'user', ['read:accounts'], (ctx) => showReport(ctx.deps, ctx.account.id, year(ctx)));
  r.get('/api/v1/annual_reports/:year/state', 'user', ['read:accounts'], (ctx) => ({ state: reportState(ctx.deps, ctx.account.id, year(ctx)) }));
  r.post('/api/v1/annual_reports/:year/read', 'user', ['write:accounts'], (ctx) => {
    markReportRead(ctx.deps, ctx.account.id, year(ctx));
    return {};
  });
  r.post('/api/v1/annual_reports/:year/generate', 'user', ['write:accounts'], (ctx) => {
    generateReport(ctx.deps, ctx.account.id, year(ctx));
    return {};
  });
}
