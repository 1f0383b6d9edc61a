import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { http, https } from '../../util/node-http.js';
import { isForbiddenAddress } from '../../util/safe-fetch.js';
import type { Deps } from '../deps.js';
import type { PushRequest } from './request.js';

/** What a push service answered. */
export interface PushAnswer {
  status: number;
  /** The delay its Retry-After asked for, if any (ms). */
  retryAfterMs: number | null;
}

/** A push request that got no answer, or may never be made (`permanent`: a forbidden address, a bad URL). */
export class PushSendError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PushSendError';
  }
}

/** How long one push request may take. */
const SEND_TIMEOUT_MS = 30_000;

/** How much of an answer's body is read (push services answer with a few bytes, if any). */
const MAX_ANSWER_BYTES = 16 * 1024;

/** A DNS lookup that refuses names resolving to a private or special address (unless allowed). */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 4);
      const list = addresses ?? [];
      if (!allowPrivate && list.some((a) => isForbiddenAddress(a.address))) {
        return callback(new PushSendError(`${hostname} resolves to a private address`, true), '', 4);
      }
      const first = list[0];
      if (!first) return callback(new PushSendError(`${hostname} has no address`, false), '', 4);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, first.address, first.family);
    });
  };
}

interface Agents {
  http: Http.Agent;
  https: Https.Agent;
}

// Keep-alive connections per push service (a phone's pushes all go to one), shared by the
// instances of this process. Every connection they open goes through the address guard, so a
// connection they reuse was checked when it was made.
const agentSets = new Map<boolean, Agents>();

function agents(allowPrivate: boolean): Agents {
  let set = agentSets.get(allowPrivate);
  if (!set) {
    const lookup = guardedLookup(allowPrivate);
    set = {
      http: new http.Agent({ keepAlive: true, maxSockets: 32, lookup } as Http.AgentOptions),
      https: new (https().Agent)({ keepAlive: true, maxSockets: 32, lookup } as Https.AgentOptions),
    };
    agentSets.set(allowPrivate, set);
  }
  return set;
}

/** Retry-After as seconds or an HTTP date, in milliseconds from now; null when absent or unreadable. */
function retryAfterMs(value: string | null | undefined): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : null;
}

/** POSTs directly, through the guarded keep-alive agents. */
function sendDirect(request: PushRequest, allowPrivate: boolean): Promise<PushAnswer> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch (err) {
    return Promise.reject(new PushSendError(`not a URL: ${request.url}`, true, { cause: err }));
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const secure = url.protocol === 'https:';
  if (!secure && !(url.protocol === 'http:' && allowPrivate)) return Promise.reject(new PushSendError(`not an https URL: ${request.url}`, true));
  // Literal addresses are not looked up, so they are checked here.
  if (!allowPrivate && isIP(host) && isForbiddenAddress(host)) return Promise.reject(new PushSendError(`${host} is a private address`, true));
  const set = agents(allowPrivate);
  return new Promise((resolve, reject) => {
    const req = (secure ? https().request : http.request)(
      url,
      { method: 'POST', headers: { ...request.headers, 'Content-Length': String(request.body.length) }, agent: secure ? set.https : set.http, timeout: SEND_TIMEOUT_MS },
      (res) => {
        let read = 0;
        // The body is read (so that the connection can be reused) and dropped.
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        const done = () => resolve({ status: res.statusCode ?? 0, retryAfterMs: retryAfterMs(res.headers['retry-after']) });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    req.on('timeout', () => req.destroy(new PushSendError(`no answer from ${url.host} within ${SEND_TIMEOUT_MS / 1000} s`, false)));
    req.on('error', (err) => reject(err instanceof PushSendError ? err : new PushSendError(err.message, false, { cause: err })));
    req.end(request.body);
  });
}

/**
 * POSTs through the process's `fetch`, which the relay connector routes through the relay's
 * egress (api/relay/egress.ts) while the instance federates through a relay: the push service
 * then sees the relay's address, as every peer does, and the relay retries a 5xx for a while.
 */
async function sendThroughRelay(request: PushRequest): Promise<PushAnswer> {
  let response: Response;
  try {
    response = await fetch(request.url, { method: 'POST', headers: request.headers, body: new Uint8Array(request.body) });
  } catch (err) {
    throw new PushSendError((err as Error).message, false, { cause: err });
  }
  await response.arrayBuffer().catch(() => undefined);
  return { status: response.status, retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
}

/**
 * Sends one push request and resolves with the push service's answer, whatever its status;
 * rejects with a PushSendError when there is none. Private and loopback addresses are refused
 * except in the loopback test mode (`federationAllowLoopback`).
 */
export function sendPushRequest(deps: Deps, request: PushRequest): Promise<PushAnswer> {
  if (deps.config.relay) return sendThroughRelay(request);
  return sendDirect(request, deps.config.federationAllowLoopback);
}
