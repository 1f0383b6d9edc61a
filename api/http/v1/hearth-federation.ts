import { listFailingPeers, requireOwner, type FailingPeer } from '../../core/federation/delivery-failures.js';
import { federationPause, setFederationPaused } from '../../core/federation/pause.js';
import { bool, parse, required, z } from '../params.js';
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

const pauseSchema = z.object({ paused: bool() });

/**
 * Hearth's own federation endpoints (no Mastodon counterpart), for the owner only (403 for anyone
 * else):
 * - `GET /api/hearth/federation/failing_peers`: the peers our deliveries are failing to reach,
 *   since when and with what answer.
 * - `GET /api/hearth/federation`: `{paused, since}`, whether federation is paused (see
 *   core/federation/pause.ts) and since when; `PUT` with `{paused}` pauses or resumes it. The
 *   scopes of the owner's other switch about federation (`/api/hearth/reach`): `read` and
 *   `write`, which the desktop app's own token holds (its tray has the switch).
 */
export function register(r: Routes): void {
  r.get('/api/hearth/federation/failing_peers', 'user', ['read'], (ctx) => {
    requireOwner(ctx.user);
    return listFailingPeers(ctx.deps).map(failingPeerJson);
  });

  r.get('/api/hearth/federation', 'user', ['read'], (ctx) => {
    requireOwner(ctx.user);
    return federationPause(ctx.deps);
  });

  r.put('/api/hearth/federation', 'user', ['write'], (ctx) => {
    requireOwner(ctx.user);
    const paused = required(parse(pauseSchema, ctx.input).paused, 'paused');
    return setFederationPaused(ctx.deps, paused);
  });
}
