import { listFailingPeers, requireOwner, type FailingPeer } from '../../core/federation/delivery-failures.js';
import type { Routes } from '../routes.js';

/** A failing peer as the API shows it (snake_case, ISO 8601 times). */
function failingPeerJson(p: FailingPeer): Record<string, string | number | null> {
  return {
    host: p.host,
    inbox: p.inbox,
    first_failed_at: p.firstFailedAt,
    last_failed_at: p.lastFailedAt,
    failures: p.failures,
    last_status: p.lastStatus,
    last_error: p.lastError,
  };
}

/**
 * Hearth's own federation endpoints (no Mastodon counterpart): the peers our deliveries are
 * failing to reach, since when and with what answer; for the owner only (403 for anyone else).
 */
export function register(r: Routes): void {
  r.get('/api/hearth/federation/failing_peers', 'user', ['read'], (ctx) => {
    requireOwner(ctx.user);
    return listFailingPeers(ctx.deps).map(failingPeerJson);
  });
}
