import { listFailingPeers, requireOwner } from '../../core/federation/delivery-failures.js';
import { relayStatus } from '../../core/relay/status.js';
import type { Routes } from '../routes.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * `GET /api/hearth/relay` (Hearth's own, for the app's UI; the owner only): the relay connection
 * (relay, host, public origin, connected and since when, the last error), the backlog the relay
 * holds for the instance and what it shed, the deliveries waiting here, and the peers deliveries
 * are failing to reach. `enabled` is false for an instance without a relay.
 */
export function register(r: Routes): void {
  r.get('/api/hearth/relay', 'user', ['read'], (ctx) => {
    requireOwner(ctx.user);
    const s = relayStatus(ctx.deps);
    return {
      enabled: s.enabled,
      relay_url: s.relayUrl,
      host: s.host,
      origin: s.origin,
      enrolled_at: iso(s.enrolledAt),
      connected: s.connected,
      connected_since: iso(s.connectedSince),
      last_error: s.lastError,
      last_error_at: iso(s.lastErrorAt),
      clients: s.clients,
      backlog: s.backlog,
      backlog_bytes: s.backlogBytes,
      oldest_backlog_at: iso(s.oldestBacklogAt),
      shed: s.shed,
      outbound_pending: s.outboundPending,
      reported_at: iso(s.reportedAt),
      failing_peers: listFailingPeers(ctx.deps).map((p) => ({
        host: p.host,
        inbox: p.inbox,
        first_failed_at: p.firstFailedAt,
        last_failed_at: p.lastFailedAt,
        failures: p.failures,
        last_status: p.lastStatus,
        last_error: p.lastError,
      })),
    };
  });
}
