import { getStatusCard } from '../../core/cards/read.js';
import { notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import type { Routes } from '../routes.js';

/**
 * `GET /api/v1/statuses/:id/card`: the preview card of a visible status, or `{}` when it has none
 * (Mastodon's answer before the card moved into the Status entity; older clients still call it).
 */
export function register(r: Routes): void {
  r.get('/api/v1/statuses/:id/card', 'public', ['read:statuses'], (ctx) => {
    const id = String(ctx.req.params.id ?? '');
    if (!isId(id)) throw notFound();
    return getStatusCard(ctx.deps, id, ctx.auth?.account?.id ?? null) ?? {};
  });
}
