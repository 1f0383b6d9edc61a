import { computeRetention } from '../../core/admin/retention.js';
import { requirePermission } from '../../core/roles/access.js';
import { PERMISSION } from '../../util/permissions.js';
import type { Routes } from '../routes.js';

/**
 * `POST /api/v1/admin/retention`: sign-up cohorts by day or month and how many of each kept using
 * the instance (core/admin/retention.ts). View Dashboard; `admin:read`.
 */
export function register(r: Routes): void {
  r.post('/api/v1/admin/retention', 'user', ['admin:read'], (ctx) => {
    requirePermission(ctx.deps, ctx.user, PERMISSION.viewDashboard);
    return computeRetention(ctx.deps, ctx.input);
  });
}
