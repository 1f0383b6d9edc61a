import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { createRequire } from 'node:module';
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { HOP_BY_HOP } from './protocol.js';

const require = createRequire(import.meta.url);
const http = require('node:http') as typeof Http;
const https = require('node:https') as typeof Https;

/**
 * Requests the relay makes for its instances: the deliveries they signed (`send`) and their
 * signed GETs (`fetch`). Peers see the relay's address. Nothing is signed or changed here: the
 * headers go out as the instance made them (Host and Date included, which its signature covers).
 * Private, loopback and other special addresses are refused (but under --allow-loopback), on the
 * address actually connected to.
 */

const forbidden = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) forbidden.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32]] as const) {
  forbidden.addSubnet(net, prefix, 'ipv6');
}

/** Whether the relay must not connect to this address (IPv4-mapped IPv6 addresses count as IPv4). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return forbidden.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 4);
      if (!allowPrivate && addresses.some((a) => isForbiddenAddress(a.address))) {
        return callback(new Error(`${hostname} resolves to a private address`), '', 4);
      }
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname} has no address`), '', 4);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, first.address, first.family);
    });
  };
}

/** The answer of one request: head, and the body as it streams. */
export interface EgressResponse {
  status: number;
  headers: [string, string][];
  body: Http.IncomingMessage;
}

/** One HTTP request with the headers as given (hop-by-hop ones dropped) and an optional body. */
export function requestOnce(
  url: URL,
  method: string,
  headers: readonly [string, string][],
  body: Buffer | null,
  options: { allowPrivate: boolean; timeoutMs: number; agents: Agents },
): Promise<EgressResponse> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return Promise.reject(new Error(`not an http(s) URL: ${url.href}`));
  if (!options.allowPrivate && isIP(url.hostname.replace(/^\[|\]$/g, '')) && isForbiddenAddress(url.hostname.replace(/^\[|\]$/g, ''))) {
    return Promise.reject(new Error(`${url.hostname} is a private address`));
  }
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    if (HOP_BY_HOP.has(key)) continue;
    const prev = out[key];
    out[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  if (body) out['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(
      url,
      { method, headers: out, agent: url.protocol === 'https:' ? options.agents.https : options.agents.http, timeout: options.timeoutMs },
      (res) => {
        const pairs: [string, string][] = [];
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string]);
        resolve({ status: res.statusCode ?? 0, headers: pairs, body: res });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url.host} within ${options.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/** Keep-alive agents whose new connections go through the address guard. */
export interface Agents {
  http: Http.Agent;
  https: Https.Agent;
}

/** Makes the agents for a relay (one set per process: connections to a peer are reused across tenants). */
export function makeAgents(allowPrivate: boolean): Agents {
  const lookup = guardedLookup(allowPrivate);
  return {
    http: new http.Agent({ keepAlive: true, maxSockets: 8, lookup } as Http.AgentOptions),
    https: new https.Agent({ keepAlive: true, maxSockets: 8, lookup } as Https.AgentOptions),
  };
}

/** Reads at most `max` bytes of a body as text (the rest is discarded). */
export async function readStart(body: Http.IncomingMessage, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size < max) chunks.push(chunk.subarray(0, max - size));
    size += chunk.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The outcome of a delivery handed to the relay. */
export interface SendOutcome {
  status: number | null;
  error: string | null;
  attempts: number;
  answer: string;
}

/** How long the relay keeps retrying one delivery at most (the instance's queue retries after that). */
export const SEND_BUDGET_MS = 90_000;

/** Whether an answer may change if asked again: network errors, 5xx, 408 and 429. */
function retryable(status: number | null): boolean {
  return status === null || status >= 500 || status === 408 || status === 429;
}

/**
 * Sends a signed delivery: retried after network errors, 5xx, 408 and 429, with growing pauses,
 * until it succeeds, fails for good, the signature's validity (`validUntil`) or SEND_BUDGET_MS
 * ends. The peer's answer (status and its first bytes) goes back to the instance, whose queue
 * decides what comes next (a retry there is signed anew).
 */
export async function send(
  url: URL,
  headers: readonly [string, string][],
  body: Buffer,
  validUntil: number,
  options: { allowPrivate: boolean; agents: Agents; signal?: AbortSignal },
): Promise<SendOutcome> {
  const deadline = Math.min(validUntil, Date.now() + SEND_BUDGET_MS);
  let attempts = 0;
  let last: SendOutcome = { status: null, error: 'not sent', attempts: 0, answer: '' };
  for (let pause = 1000; ; pause *= 3) {
    attempts += 1;
    try {
      const res = await requestOnce(url, 'POST', headers, body, { allowPrivate: options.allowPrivate, timeoutMs: 30_000, agents: options.agents });
      const answer = await readStart(res.body, 512);
      last = { status: res.status, error: null, attempts, answer };
    } catch (err) {
      last = { status: null, error: (err as Error).message, attempts, answer: '' };
    }
    if (!retryable(last.status) || options.signal?.aborted) return last;
    if (Date.now() + pause >= deadline) return last;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
