import { createReport } from '../../core/reports/reports.js';
import { arrayOf, bool, parse, required, str, z } from '../params.js';
import type { Routes } from '../routes.js';

const idValue = z.union([z.string(), z.number()]).transform(String);

const reportParams = z.object({
  account_id: idValue.optional(),
  status_ids: arrayOf(idValue),
  comment: str(),
  category: str(),
  rule_ids: arrayOf(idValue),
  forward: bool(),
});

/** Reports: `POST /api/v1/reports` files one (write:reports). */
export function register(r: Routes): void {
  r.post('/api/v1/reports', 'user', ['write:reports'], (ctx) => {
    const p = parse(reportParams, ctx.input);
    return createReport(ctx.deps, ctx.account, {
      accountId: required(p.account_id, 'account_id'),
      statusIds: p.status_ids ?? [],
      comment: p.comment,
      category: p.category,
      ruleIds: p.rule_ids ?? [],
      forward: p.forward ?? false,
    });
  });
}
