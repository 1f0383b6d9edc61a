import { computeDimensions, DEFAULT_DIMENSION_LIMIT, DIMENSION_KEYS, dimensionPeriod, MAX_DIMENSION_LIMIT } from '../../core/admin/dimensions.js';
import { requestedKeys } from '../../core/admin/measures.js';
import { requirePermission } from '../../core/roles/access.js';
import { PERMISSION } from '../../util/permissions.js';
import { limitParam } from '../limit.js';
import type { Routes } from '../routes.js';

/**
 * `POST /api/v1/admin/dimensions`: the dashboard's largest groups (languages, apps, servers,
 * space, versions, and those of a tag or a server) over an optional period
 * (core/admin/dimensions.ts). View Dashboard; `admin:read`.
 */
export function register(r: Routes): void {
  r.post('/api/v1/admin/dimensions', 'user', ['admin:read'], (ctx) => {
    requirePermission(ctx.deps, ctx.user, PERMISSION.viewDashboard);
    const keys = requestedKeys(ctx.input.keys, DIMENSION_KEYS);
    const limit = limitParam(ctx.input, DEFAULT_DIMENSION_LIMIT, MAX_DIMENSION_LIMIT);
    return computeDimensions(ctx.deps, keys, dimensionPeriod(ctx.input), ctx.input, limit);
  });
}
