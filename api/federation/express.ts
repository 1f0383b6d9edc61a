import type { Federation } from '@fedify/fedify';
import type { NextFunction, Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from 'express';
import type { Deps } from '../core/deps.js';
import { federatesWith } from '../core/federation/instance-domains.js';
import { isFederationPaused, PAUSED_RETRY_AFTER_S } from '../core/federation/pause.js';
import { kvGet } from '../db/repos/federation.js';
import { backgroundLane } from '../util/background-lane.js';
import { now } from '../util/clock.js';

/** Paths Fedify answers; everything else goes straight to the REST routes. */
function isFederationPath(path: string): boolean {
  return path === '/.well-known/webfinger' || path === '/inbox' || path.startsWith('/users/');
}

/** How far a signed request's Date may be from our clock (Mastodon allows hours; Fedify one hour). */
export const SIGNATURE_WINDOW_MS = 60 * 60 * 1000;

/**
 * Whether a signed request is fresh by our own clock (api/util/clock.ts, which replay tests set),
 * or by `clock` (a relay's receipt time): the Date header for draft-cavage, `created` for RFC 9421.
 * Unsigned requests pass (Fedify refuses them where a signature is needed).
 */
export function isFresh(headers: Headers, clock: number = now()): boolean {
  const input = headers.get('signature-input');
  const created = input ? /created=(\d+)/.exec(input)?.[1] : undefined;
  const at = created ? Number(created) * 1000 : headers.get('date') ? Date.parse(headers.get('date') ?? '') : NaN;
  if (!headers.get('signature') && !input) return true;
  return Number.isFinite(at) && Math.abs(clock - at) <= SIGNATURE_WINDOW_MS;
}

/**
 * Whether a delivery comes from a host we federate with (instance domain blocks and allow-list
 * mode): both the signing key's host and the activity's actor are checked, before any key is
 * fetched for a blocked server.
 */
function fromFederatedHost(deps: Deps, headers: Headers, body: Buffer | undefined): boolean {
  const sig = headers.get('signature') ?? headers.get('signature-input') ?? '';
  const keyId = /keyid="([^"]+)"/i.exec(sig)?.[1];
  const hosts: string[] = [];
  try {
    if (keyId) hosts.push(new URL(keyId).host);
    const parsed = body ? (JSON.parse(body.toString('utf8')) as { actor?: unknown }) : null;
    const actor = typeof parsed?.actor === 'string' ? parsed.actor : typeof (parsed?.actor as { id?: unknown } | undefined)?.id === 'string' ? String((parsed?.actor as { id: string }).id) : null;
    if (actor) hosts.push(new URL(actor).host);
  } catch {
    // Unparseable bodies and key ids are refused by the signature check itself.
  }
  return hosts.every((h) => federatesWith(deps, h));
}

/** Marks the inbox's 503 for a signer's key that could not be fetched (see registerInbox). */
export const KEY_UNAVAILABLE_HEADER = 'x-hearth-key-unavailable';

/** Whether Fedify's key cache holds the key a request is signed with. */
function signingKeyKnown(deps: Deps, headers: Headers): boolean {
  const sig = headers.get('signature') ?? headers.get('signature-input') ?? '';
  const keyId = /keyid="([^"]+)"/i.exec(sig)?.[1];
  if (!keyId) return false;
  const row = kvGet(deps.db, JSON.stringify(['_fedify', 'publicKey', keyId]), now());
  return row !== undefined && row.value !== 'null';
}

/** Deliveries verified and enqueued at the same time, at most (see InboxGate). */
const INBOX_AT_ONCE = 2;

/**
 * Lets a few inbox deliveries at a time into Fedify (signature verification, parsing, enqueueing:
 * a millisecond or more of CPU each, in many small steps). Peers deliver over many connections
 * at once; with all of them in flight, every turn of the event loop carries a step of each, and a
 * REST request waits behind all of them. Waiting here costs nothing but memory for the body,
 * which is bounded by the connections a peer holds open.
 */
class InboxGate {
  private inside = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Resolves when the caller may go in, with the function that lets the next one in. */
  async enter(): Promise<() => void> {
    if (this.inside >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.inside += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next in line; `inside` only drops when nobody waits.
      if (next) next();
      else this.inside -= 1;
    };
  }
}

async function readBody(req: ExpressRequest, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new Error('body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A federation request handled in-process: an inbox delivery the relay stored and now replays. */
export interface FederationInput {
  method: string;
  /** Path and query as the peer requested them. */
  path: string;
  /** Header pairs as the peer sent them (its signature covers some of them). */
  headers: readonly [string, string][];
  body: Buffer | null;
}

/** The federation's door for HTTP: the Express middleware and the in-process entry for replayed deliveries. */
export interface FederationHandler {
  middleware: RequestHandler;
  /**
   * Hands a delivery to Fedify as if it had just arrived, checking the signature's freshness
   * against `receivedAt` (when the relay received it: a relay can delay mail, not forge it).
   * Resolves to Fedify's answer (202 once the activity is on the inbox queue, durably).
   */
  deliver(input: FederationInput, receivedAt: number): Promise<Response>;
}

/**
 * Hands federation requests to Fedify as fetch Requests. The Request URL is built from the public
 * origin, whatever Host or address the request came in on (a TLS proxy, the relay), so URLs and
 * signatures are checked against the origin. Requests Fedify does not serve (HTML for browsers,
 * unknown paths) fall through to the next handler. Mounted before the body parsers: inbox bodies
 * are read raw, as their Digest covers the exact bytes.
 */
export function federationHandler(federation: Federation<Deps>, deps: Deps, origin: string, maxBodyBytes: number): FederationHandler {
  const inboxGate = new InboxGate(INBOX_AT_ONCE);
  const notFound = () => new Response(null, { status: 404 });

  /** Checks a delivery's sender and freshness, then lets Fedify verify and enqueue it; null when it fell through. */
  async function toFedify(method: string, url: URL, headers: Headers, body: Buffer | undefined, at: number, onFallThrough: () => Response): Promise<Response> {
    const hasBody = body !== undefined;
    // Federation is paused (core/federation/pause.ts): deliveries are refused for now, and peers retry.
    if (hasBody && isFederationPaused(deps)) {
      return new Response('Federation is paused here for now; try again later.', { status: 503, headers: { 'content-type': 'text/plain', 'retry-after': String(PAUSED_RETRY_AFTER_S) } });
    }
    if (hasBody && !fromFederatedHost(deps, headers, body)) return new Response('Request from blocked domain', { status: 401, headers: { 'content-type': 'text/plain' } });
    if (hasBody && !isFresh(headers, at)) return new Response('Signature expired or from the future', { status: 401, headers: { 'content-type': 'text/plain' } });
    const request = new Request(webfingerByAcct(url, origin), { method, headers, body: body ? new Uint8Array(body) : null });
    // Deliveries take turns (see InboxGate), and go in at a turn of the event loop of their own
    // (see BackgroundLane); lookups and fetches go straight through.
    const release = hasBody ? await inboxGate.enter() : null;
    if (release) await backgroundLane.turn();
    // Whether the signer's key was known before: a signature that fails with a known key makes
    // Fedify fetch the key again (it may have been rotated), and if that fetch fails the inbox
    // answers 503 (see registerInbox): right for a key never seen, wrong for a bad signature.
    const keyKnown = hasBody && signingKeyKnown(deps, headers);
    try {
      const response = await federation.fetch(request, { contextData: deps, onNotFound: onFallThrough, onNotAcceptable: onFallThrough });
      if (response.status === 503 && response.headers.has(KEY_UNAVAILABLE_HEADER) && keyKnown) {
        return new Response('Failed to verify the request signature.', { status: 401, headers: { 'content-type': 'text/plain' } });
      }
      response.headers.delete(KEY_UNAVAILABLE_HEADER);
      return response;
    } finally {
      release?.();
    }
  }

  const middleware: RequestHandler = (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    if (!isFederationPath(req.path)) return next();
    void (async () => {
      const headers = new Headers();
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i];
        const value = req.rawHeaders[i + 1];
        if (name !== undefined && value !== undefined) headers.append(name, value);
      }
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const body = hasBody ? await readBody(req, maxBodyBytes) : undefined;
      let fellThrough = false;
      const response = await toFedify(req.method, new URL(req.originalUrl, origin), headers, body, now(), () => {
        fellThrough = true;
        return notFound();
      });
      if (fellThrough && !hasBody) return next();
      res.status(response.status);
      response.headers.forEach((value, name) => res.setHeader(name, value));
      const out = Buffer.from(await response.arrayBuffer());
      res.setHeader('Content-Length', String(out.length));
      res.end(out);
    })().catch(next);
  };

  return {
    middleware,
    deliver(input, receivedAt) {
      const headers = new Headers();
      for (const [name, value] of input.headers) headers.append(name, value);
      return toFedify(input.method, new URL(input.path, origin), headers, input.body ?? Buffer.alloc(0), receivedAt, notFound);
    },
  };
}

/**
 * A WebFinger query by actor URL (`resource=https://host/users/alice`) is answered as Mastodon
 * answers it: with the `acct:` handle as subject and the actor URL among the aliases. Fedify would
 * echo the URL as subject, so the query is rewritten to the handle it names. A bare `user@host`
 * gets the `acct:` scheme it left out.
 */
export function webfingerByAcct(url: URL, origin: string): URL {
  if (url.pathname !== '/.well-known/webfinger') return url;
  const resource = url.searchParams.get('resource') ?? '';
  // A bare `user@host` (no scheme) is a handle, as Mastodon reads it; Fedify wants `acct:`.
  if (/^[^:@/]+@[^@/]+$/.test(resource)) {
    const out = new URL(url);
    out.searchParams.set('resource', `acct:${resource}`);
    return out;
  }
  const prefix = `${origin}/users/`;
  if (!resource.startsWith(prefix)) return url;
  const name = resource.slice(prefix.length);
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) return url;
  const out = new URL(url);
  out.searchParams.set('resource', `acct:${name}@${new URL(origin).host}`);
  return out;
}

/**
 * `/.well-known/host-meta`: the XRD pointing to WebFinger, as Mastodon serves it. `base` is the
 * public origin, or for a local-only instance a function giving the request's own base (host-meta
 * answers there too: clients look for it).
 */
export function hostMeta(base: string | (() => string)): RequestHandler {
  return (req, res, next) => {
    if (req.path !== '/.well-known/host-meta') return next();
    const origin = typeof base === 'string' ? base : base();
    res.type('application/xrd+xml; charset=utf-8').send(
      `<?xml version="1.0" encoding="UTF-8"?>\n<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n  <Link rel="lrdd" template="${escapeXml(origin)}/.well-known/webfinger?resource={uri}"/>\n</XRD>\n`,
    );
  };
}

/** Escapes text for an XML attribute. */
function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
