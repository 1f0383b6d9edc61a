import { listDeliveryFailures } from '../../db/repos/delivery-failures.js';
import type { UserRole } from '../../db/repos/users.js';
import { isoTime } from '../../util/clock.js';
import { forbidden } from '../../util/errors.js';
import type { Deps } from '../deps.js';

/** A peer (one inbox of a remote server) that our deliveries are failing to reach. */
export interface FailingPeer {
  /** The server's host (with the port, if any). */
  host: string;
  /** The inbox the deliveries went to. */
  inbox: string;
  /** When the first failure since the last successful delivery there happened (ISO 8601). */
  firstFailedAt: string;
  /** When the latest failure happened (ISO 8601). */
  lastFailedAt: string;
  /** Failed attempts since the last successful delivery. */
  failures: number;
  /** The HTTP status of the latest failure; null when the peer did not answer (a network error). */
  lastStatus: number | null;
  /** The first bytes of the latest answer, or the network error. */
  lastError: string;
}

/**
 * The peers our deliveries are failing to reach, the longest failing first. The delivery thread
 * records every failed attempt per inbox and forgets an inbox once a delivery to it succeeds.
 */
export function listFailingPeers(deps: Deps): FailingPeer[] {
  return listDeliveryFailures(deps.db).map((r) => ({
    host: r.host,
    inbox: r.inbox,
    firstFailedAt: isoTime(r.first_failed_at),
    lastFailedAt: isoTime(r.last_failed_at),
    failures: r.failures,
    lastStatus: r.last_status,
    lastError: r.last_error,
  }));
}

/** Refuses (403) anyone but the owner: how deliveries fare is the instance owner's business. */
export function requireOwner(user: { role: UserRole }): void {
  if (user.role !== 'owner') throw forbidden();
}
