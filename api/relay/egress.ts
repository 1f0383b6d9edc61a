import type { ToInstance, ToRelay } from '../../relay/protocol.js';

/** How long an outgoing request waits for the tunnel when it is down, before it fails (the queue retries). */
export const WAIT_FOR_TUNNEL_MS = 30_000;

/** How long a signed GET may take through the relay. */
const FETCH_TIMEOUT_MS = 60_000;

/** How long a delivery may take (the relay retries it for up to 90 s). */
const SEND_TIMEOUT_MS = 150_000;

/** Largest document a GET through the relay may bring back. */
const MAX_FETCH_BYTES = 16 * 1024 * 1024;

/** Redirects followed for a fetch that asks to follow them. */
const MAX_REDIRECTS = 5;

/** How long after its Date a signature is still accepted by a peer (Fedify's window; Mastodon allows more). */
const SIGNATURE_VALID_MS = 55 * 60 * 1000;

/** What the egress needs of the connector. */
export interface EgressTunnel {
  send(frame: ToRelay, body?: Uint8Array): boolean;
  whenConnected(timeoutMs: number): Promise<boolean>;
  /** Resolves once every public document published so far is on the relay (or was refused). */
  published(): Promise<void>;
}

interface PendingFetch {
  resolve: (response: Response) => void;
  reject: (error: Error) => void;
  head: { status: number; headers: [string, string][] } | null;
  chunks: Buffer[];
  size: number;
}

interface PendingSend {
  resolve: (response: Response) => void;
  reject: (error: Error) => void;
}

/** Methods that are not deliveries: made as plain requests through the relay. */
const READS = new Set(['GET', 'HEAD']);

/**
 * Everything the instance asks of other servers, made by the relay: the deliveries it signed
 * (POSTs, which the relay retries within the signature's validity) and its signed GETs (actors,
 * objects, keys, WebFinger). Peers see the relay's address, never the home network's. Used as the
 * process's `fetch` for remote URLs while the instance federates through a relay (see
 * installEgress); a request made while the tunnel is down waits for it a little, then fails like
 * a network error, and the durable queue tries again later.
 */
export class RelayEgress {
  private nextId = 1;
  private readonly fetches = new Map<string, PendingFetch>();
  private readonly sends = new Map<string, PendingSend>();

  constructor(private readonly tunnel: EgressTunnel) {}

  /** Makes a request through the relay; resolves with the peer's answer as a Response. */
  async fetch(request: Request): Promise<Response> {
    if (!(await this.tunnel.whenConnected(WAIT_FOR_TUNNEL_MS))) throw new TypeError('fetch failed: the relay tunnel is not connected');
    if (READS.has(request.method)) return this.get(request, MAX_REDIRECTS);
    return this.deliver(request);
  }

  private async get(request: Request, redirectsLeft: number): Promise<Response> {
    const id = `i${this.nextId++}`;
    const headers: [string, string][] = [];
    request.headers.forEach((value, name) => headers.push([name, value]));
    if (!headers.some(([n]) => n === 'host')) headers.push(['host', new URL(request.url).host]);
    const response = await new Promise<Response>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fetches.delete(id);
        reject(new TypeError(`fetch failed: no answer through the relay within ${FETCH_TIMEOUT_MS / 1000} s`));
      }, FETCH_TIMEOUT_MS);
      this.fetches.set(id, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
        head: null,
        chunks: [],
        size: 0,
      });
      if (!this.tunnel.send({ t: 'fetch', id, url: request.url, headers })) {
        this.fetches.delete(id);
        clearTimeout(timer);
        reject(new TypeError('fetch failed: the relay tunnel dropped'));
      }
    });
    const location = response.headers.get('location');
    if (request.redirect === 'follow' && response.status >= 300 && response.status < 400 && location) {
      if (redirectsLeft === 0) throw new TypeError('fetch failed: too many redirects');
      return this.get(new Request(new URL(location, request.url), { method: request.method, headers: request.headers, redirect: 'follow' }), redirectsLeft - 1);
    }
    return response;
  }

  private async deliver(request: Request): Promise<Response> {
    // What the delivery points at (the post, its media) is on the relay before the delivery leaves.
    await this.tunnel.published();
    const body = Buffer.from(await request.arrayBuffer());
    const id = `i${this.nextId++}`;
    const headers: [string, string][] = [];
    request.headers.forEach((value, name) => headers.push([name, value]));
    if (!headers.some(([n]) => n === 'host')) headers.push(['host', new URL(request.url).host]);
    const signedAt = Date.parse(request.headers.get('date') ?? '');
    const validUntil = (Number.isFinite(signedAt) ? signedAt : Date.now()) + SIGNATURE_VALID_MS;
    return new Promise<Response>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.sends.delete(id);
        reject(new TypeError('fetch failed: the relay did not report the delivery in time'));
      }, SEND_TIMEOUT_MS);
      this.sends.set(id, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      if (!this.tunnel.send({ t: 'send', id, url: request.url, headers, validUntil }, body)) {
        this.sends.delete(id);
        clearTimeout(timer);
        reject(new TypeError('fetch failed: the relay tunnel dropped'));
      }
    });
  }

  /** Handles a frame about an outgoing request; false when the frame is not one. */
  handle(frame: ToInstance, body: Buffer): boolean {
    switch (frame.t) {
      case 'sent': {
        const pending = this.sends.get(frame.id);
        if (!pending) return false;
        this.sends.delete(frame.id);
        if (frame.status === null || frame.status < 200 || frame.status > 599) pending.reject(new TypeError(`fetch failed: ${frame.error ?? 'no answer'}`));
        else pending.resolve(new Response(frame.status === 204 || frame.status === 205 || frame.status === 304 ? null : frame.answer, { status: frame.status }));
        return true;
      }
      case 'fetched': {
        const pending = this.fetches.get(frame.id);
        if (!pending) return false;
        pending.head = { status: frame.status, headers: frame.headers };
        return true;
      }
      case 'chunk': {
        const pending = this.fetches.get(frame.id);
        if (!pending) return false;
        pending.size += body.length;
        if (pending.size > MAX_FETCH_BYTES) {
          this.fetches.delete(frame.id);
          pending.reject(new TypeError('fetch failed: the document is too large'));
        } else pending.chunks.push(Buffer.from(body));
        return true;
      }
      case 'end': {
        const pending = this.fetches.get(frame.id);
        if (!pending) return false;
        this.fetches.delete(frame.id);
        const head = pending.head;
        if (frame.error || !head || head.status < 200 || head.status > 599) {
          pending.reject(new TypeError(`fetch failed: ${frame.error ?? 'no answer'}`));
          return true;
        }
        const nullBody = head.status === 204 || head.status === 205 || head.status === 304;
        pending.resolve(new Response(nullBody ? null : Buffer.concat(pending.chunks), { status: head.status, headers: head.headers }));
        return true;
      }
      default:
        return false;
    }
  }

  /** The tunnel dropped: what waits for an answer fails (the callers' queues retry). */
  failAll(): void {
    for (const pending of this.fetches.values()) pending.reject(new TypeError('fetch failed: the relay tunnel dropped'));
    this.fetches.clear();
    for (const pending of this.sends.values()) pending.reject(new TypeError('fetch failed: the relay tunnel dropped'));
    this.sends.clear();
  }
}

/**
 * Routes the process's `fetch` through the relay for every URL that is not the instance's own
 * listener (Fedify's deliveries, key and document fetches, WebFinger lookups all call the global
 * `fetch`). Returns the function that puts the original back.
 */
export function installEgress(egress: RelayEgress, isLocal: (url: URL) => boolean): () => void {
  const original = globalThis.fetch;
  globalThis.fetch = (async (input: Request | string | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (isLocal(new URL(request.url))) return original(request);
    return egress.fetch(request);
  }) as typeof fetch;
  return () => {
    globalThis.fetch = original;
  };
}
