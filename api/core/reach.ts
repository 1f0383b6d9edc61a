import { normalizeOrigin, normalizeRelayUrl, updateConfigFile, type Config } from '../config.js';
import { hasFederated } from '../db/repos/reach.js';
import { getRelayEnrolment } from '../db/repos/relay.js';
import { ApiError } from '../util/errors.js';
import type { Deps } from './deps.js';

/**
 * How the instance is reached, the second step of the first run: local-only (no federation), at a
 * public origin of the person's own (behind their TLS proxy), or through a relay (its address and
 * enrolment code; the origin comes from the relay unless the person points a domain of their own
 * at it). The choice is written into the config file and takes effect when the server starts
 * again; the origin is the instance's identity, so once other servers know it, it stays.
 */

/** Local-only, at the person's own public origin, or through a relay. */
export type ReachMode = 'local' | 'origin' | 'relay';

/** A way of being reached; `origin` is null when local-only, or through a relay not enrolled at yet. */
export interface Reach {
  mode: ReachMode;
  origin: string | null;
  relayUrl: string | null;
}

/** What the API shows: the choice in force, or the one waiting for a restart. */
export interface ReachView extends Reach {
  restartRequired: boolean;
  /** Whether this server can restart itself (`POST /api/hearth/restart`). */
  restartAvailable: boolean;
  /** Why the last restart fell back to the previous configuration, if it did. */
  lastRestartError: string | null;
}

/** What a person chooses (the API's fields). */
export interface ReachInput {
  mode?: string | undefined;
  origin?: string | undefined;
  relayUrl?: string | undefined;
  relayCode?: string | undefined;
}

/** How the running server is reached. */
export function runningReach(config: Config): Reach {
  if (config.relay) return { mode: 'relay', origin: config.origin, relayUrl: config.relay };
  if (config.origin) return { mode: 'origin', origin: config.origin, relayUrl: null };
  return { mode: 'local', origin: null, relayUrl: null };
}

/** Whether a chosen reach is what runs (an origin a relay will give is not known before enrolling). */
function sameReach(chosen: Reach, running: Reach): boolean {
  if (chosen.mode !== running.mode || chosen.relayUrl !== running.relayUrl) return false;
  return chosen.origin === running.origin || (chosen.mode === 'relay' && chosen.origin === null);
}

/** The host of a server, set by whoever runs it (`hearth serve`), that restarts it. */
export interface RestartHandler {
  restart(): void;
  lastError: string | null;
}

const chosen = new WeakMap<Deps, Reach>();
const restarters = new WeakMap<Deps, RestartHandler>();

/** Installs what `POST /api/hearth/restart` calls (the server's host does, for each app it starts). */
export function setRestartHandler(deps: Deps, handler: RestartHandler): void {
  restarters.set(deps, handler);
}

/** Restarts the server, when whoever runs it can (false otherwise). */
export function requestRestart(deps: Deps): boolean {
  const handler = restarters.get(deps);
  if (!handler) return false;
  handler.restart();
  return true;
}

/** How the instance is reached, or will be once restarted after a change. */
export function currentReach(deps: Deps): ReachView {
  const running = runningReach(deps.config);
  const pending = chosen.get(deps);
  const handler = restarters.get(deps);
  const view = pending ?? running;
  return { ...view, restartRequired: pending !== undefined && !sameReach(pending, running), restartAvailable: handler !== undefined, lastRestartError: handler?.lastError ?? null };
}

function invalid(attribute: string, description: string, code = 'ERR_INVALID'): ApiError {
  const label = attribute.charAt(0).toUpperCase() + attribute.slice(1).replaceAll('_', ' ');
  return new ApiError(422, `Validation failed: ${label} ${description}`, { extra: { details: { [attribute]: [{ error: code, description }] } } });
}

/** A URL checked by `normalize` (https unless loopback federation is allowed), or a 422 about `attribute`. */
function checkedUrl(attribute: string, value: string | undefined, normalize: (v: string, allowHttp: boolean) => string, allowHttp: boolean): string {
  if (value === undefined || value.trim() === '') throw invalid(attribute, "can't be blank", 'ERR_BLANK');
  try {
    return normalize(value.trim(), allowHttp);
  } catch {
    throw invalid(attribute, `must be an ${allowHttp ? 'http:// or https://' : 'https://'} address of a scheme and host only, like https://example.org`);
  }
}

/**
 * Chooses how the instance is reached: checks the choice (422), refuses one the command line or the
 * environment would override at start (409), and one that changes the origin after other servers
 * came to know it (409: the origin is the identity); then writes it into the config file, keeping
 * its other settings, and returns it with whether a restart is needed for it to take effect.
 */
export function chooseReach(deps: Deps, input: ReachInput): ReachView {
  const allowHttp = deps.config.federationAllowLoopback;
  const mode = input.mode;
  if (mode === undefined || mode === '') throw invalid('mode', "can't be blank", 'ERR_BLANK');
  if (mode !== 'local' && mode !== 'origin' && mode !== 'relay') throw invalid('mode', 'is not included in the list', 'ERR_INCLUSION');
  let next: Reach;
  let relayCode: string | undefined;
  if (mode === 'local') next = { mode, origin: null, relayUrl: null };
  else if (mode === 'origin') next = { mode, origin: checkedUrl('origin', input.origin, normalizeOrigin, allowHttp), relayUrl: null };
  else {
    const relayUrl = checkedUrl('relay_url', input.relayUrl, normalizeRelayUrl, allowHttp);
    const own = input.origin === undefined || input.origin.trim() === '' ? null : checkedUrl('origin', input.origin, normalizeOrigin, allowHttp);
    const enrolment = getRelayEnrolment(deps.db);
    const enrolled = enrolment?.relay_url === relayUrl ? enrolment : undefined;
    // The code enrols the instance once; an instance enrolled at this relay already needs none (a
    // blank code is none).
    relayCode = input.relayCode?.trim() || undefined;
    if (!enrolled && relayCode === undefined) throw invalid('relay_code', "can't be blank (the relay's enrolment code is needed the first time)", 'ERR_BLANK');
    next = { mode, origin: own ?? (enrolled ? normalizeOrigin(enrolled.origin, true) : null), relayUrl };
  }
  const running = runningReach(deps.config);
  // Choosing what runs takes back a choice waiting for a restart (the file says so again).
  const unchanged = sameReach(next, running) && relayCode === undefined;
  if (deps.config.reachFromCommandLine) {
    if (unchanged) return currentReach(deps);
    throw new ApiError(
      409,
      'How this instance is reached is set on the command line or in the environment (--origin, --relay, HEARTH_ORIGIN, HEARTH_RELAY), which win over the config file: change it there.',
    );
  }
  if (!unchanged && running.origin !== null && next.origin !== running.origin && hasFederated(deps.db)) {
    throw new ApiError(
      409,
      `This instance has already federated as ${running.origin}: other servers know its accounts by that address, so the origin cannot change any more (followers and follows would be lost).`,
    );
  }
  updateConfigFile(deps.config.configFile, {
    origin: next.mode === 'origin' || (next.mode === 'relay' && input.origin?.trim()) ? (next.origin ?? undefined) : undefined,
    relay: next.relayUrl ?? undefined,
    relayCode: next.mode === 'relay' ? relayCode : undefined,
  });
  if (unchanged) chosen.delete(deps);
  else chosen.set(deps, next);
  return currentReach(deps);
}
