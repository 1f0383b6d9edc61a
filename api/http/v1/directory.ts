import { listDirectory } from '../../core/directory/listing.js';
import { invalidParam, limitParam, offsetParam } from '../limit.js';
import { bool, parse, str, z } from '../params.js';
import type { Routes } from '../routes.js';

const directoryParams = z.object({ order: str(), local: bool() });

/**
 * `GET /api/v1/directory`: public, no scope (as Mastodon); a signed-in viewer does not see the
 * accounts they block, are blocked by or mute, nor those on domains they blocked.
 */
export function register(r: Routes): void {
  r.get('/api/v1/directory', 'public', [], (ctx) => {
    const p = parse(directoryParams, ctx.input);
    const order = p.order === undefined || p.order === '' ? 'active' : p.order;
    if (order !== 'active' && order !== 'new') throw invalidParam('order', "must be 'active' or 'new'");
    return listDirectory(ctx.deps, ctx.auth?.account?.id ?? null, {
      order,
      local: p.local ?? false,
      limit: limitParam(ctx.input, 40, 80),
      offset: offsetParam(ctx.input),
    });
  });
}
