import { getFederationPausedAt, pauseFederationAt, resumeFederation } from '../../db/repos/federation-pause.js';
import { isoTime, now } from '../../util/clock.js';
import type { Deps } from '../deps.js';

/**
 * Pausing federation (the desktop tray's "pause federation", for a laptop on a metered network or
 * an owner who wants quiet): while paused, deliveries stay in the outbox queue unsent, the relay
 * tunnel is closed so that the relay keeps the incoming mail, and an instance reached directly
 * answers its inbox with 503 and Retry-After, which peers retry. Resuming sends what waited. The
 * state is stored, so a restart keeps it; federation and the relay connector follow the
 * `federation.paused` event.
 */

/** Whether federation is paused and since when (ISO 8601, null while it runs). */
export interface FederationPause {
  paused: boolean;
  since: string | null;
}

/** How long a peer is asked to wait before delivering again while federation is paused (seconds). */
export const PAUSED_RETRY_AFTER_S = 600;

/** Whether federation is paused now (a read of one row: cheap enough for every inbox request). */
export function isFederationPaused(deps: Pick<Deps, 'db'>): boolean {
  return getFederationPausedAt(deps.db) !== undefined;
}

/** Whether federation is paused and since when. */
export function federationPause(deps: Pick<Deps, 'db'>): FederationPause {
  const at = getFederationPausedAt(deps.db);
  return { paused: at !== undefined, since: at === undefined ? null : isoTime(at) };
}

/**
 * Pauses or resumes federation: stores the choice (durably: it outlives a restart), then tells
 * the federation and the relay connector, unless nothing changed. Returns the state.
 */
export function setFederationPaused(deps: Deps, paused: boolean): FederationPause {
  const was = isFederationPaused(deps);
  if (paused) pauseFederationAt(deps.db, now());
  else resumeFederation(deps.db);
  if (was !== paused) deps.events.emit('federation.paused', { paused });
  return federationPause(deps);
}
