import { computeMeasures, MEASURE_KEYS, requestedKeys } from '../../core/admin/measures.js';
import { requirePeriod } from '../../core/admin/measures-period.js';
import { requirePermission } from '../../core/roles/access.js';
import { PERMISSION } from '../../util/permissions.js';
import type { Routes } from '../routes.js';

/**
 * `POST /api/v1/admin/measures`: the dashboard's figures per day over `start_at`..`end_at`
 * (core/admin/measures.ts). View Dashboard; `admin:read`.
 */
export function register(r: Routes): void {
  r.post('/api/v1/admin/measures', 'user', ['admin:read'], (ctx) => {
    requirePermission(ctx.deps, ctx.user, PERMISSION.viewDashboard);
    const keys = requestedKeys(ctx.input.keys, MEASURE_KEYS);
    return computeMeasures(ctx.deps, keys, requirePeriod(ctx.input), ctx.input);
  });
}
