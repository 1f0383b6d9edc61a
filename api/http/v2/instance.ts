import { instanceLimits, loadInstanceView } from '../../core/instance/info.js';
import { toMastodonInstanceV2 } from '../../serializers/instance.js';
import type { Routes } from '../routes.js';

/** `GET /api/v2/instance`: the current instance entity. Public; a given token must be valid. */
export function register(r: Routes): void {
  r.get('/api/v2/instance', 'public', [], (ctx) => toMastodonInstanceV2(loadInstanceView(ctx.deps), instanceLimits(), ctx.deps.uris));
}
