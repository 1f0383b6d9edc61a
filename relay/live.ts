import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { answerFromCache } from './cache.js';
import { isPublicPath } from './hosts.js';
import type { RelayMetrics } from './metrics.js';
import { HOP_BY_HOP } from './protocol.js';
import type { RateLimiter } from './rate-limit.js';
import type { RelayStore, Tenant } from './store/types.js';
import type { TunnelServer } from './tunnel/server.js';
import { refuseUpgrade, type ClientSocketServer } from './tunnel/sockets.js';
import { forwardToNode, type NodeHop } from './nodes.js';

/** What answering a tenant's live requests needs. */
export interface LiveContext {
  store: RelayStore;
  tunnels: TunnelServer;
  metrics: RelayMetrics;
  clientLimiter: RateLimiter;
  /** Where clients' WebSockets (the streaming API) end at the relay. */
  clientSockets: ClientSocketServer;
  hop: NodeHop;
  /** The client's address (behind a proxy on this machine, the one it names). */
  clientAddress(req: IncomingMessage): string;
}

/** What a client of an offline instance is told (HTTP and WebSocket alike). */
const OFFLINE = 'This instance is offline right now: its computer is asleep or not connected. Try again later.';

/** What a client is told at a tenant that does not let the relay carry its client API. */
const NOT_FOUND = 'Record not found';

const TOO_MANY = 'Too many requests';

/**
 * A JSON answer of the relay itself to a client. Any origin may read it, as the instance's own API
 * answers (a web client in a browser must see a 429 or 503 to handle it).
 */
function json(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'access-control-allow-origin': '*',
    'access-control-expose-headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After',
    ...extra,
  });
  res.end(text);
}

/**
 * Any request to a tenant's host but an inbox POST. While the instance is connected it is carried
 * through the tunnel with its method, path, Host and headers intact, and the answer streams back;
 * a GET the instance does not answer in time, or any GET while it is offline, is answered from the
 * cache of public documents the instance published. Nothing is ever answered 404 or 410 for lack of
 * the instance: what is neither reachable nor cached gets 503 (peers try again; a 404 on an actor
 * would make Mastodon delete the account).
 *
 * The client side (the Mastodon API, OAuth and its pages, streaming: every path that is not public,
 * see isPublicPath) is carried only for a tenant that asked for it (`--relay-clients`): elsewhere
 * it is 404, so nothing of the instance's client side shows. It is rate limited per client address,
 * and answers 503 with a Mastodon-style error while the instance is offline.
 */
export async function serveLive(ctx: LiveContext, tenant: Tenant, req: IncomingMessage, res: ServerResponse, forwardedFromNode: boolean): Promise<void> {
  const path = req.url ?? '/';
  const pathname = new URL(path, 'http://relay.invalid').pathname;
  const client = !isPublicPath(pathname);
  // Counted where the client connected: a request handed over by another relay process was counted there.
  if (client && !forwardedFromNode) {
    const limit = ctx.clientLimiter.take(ctx.clientAddress(req));
    if (!limit.ok) {
      json(res, 429, { error: TOO_MANY }, limit.headers);
      return;
    }
  }
  const session = ctx.tunnels.session(tenant.id);
  if (session) {
    if (client && !session.clients) {
      json(res, 404, { error: NOT_FOUND });
      return;
    }
    if (await session.forward(req, res, path)) {
      ctx.metrics.countLive('tunnel');
      return;
    }
  } else if (!forwardedFromNode) {
    // Another relay process may hold the tunnel (PostgreSQL mode): hand the request over; the
    // holder knows whether the tenant carries its client API.
    const holder = await ctx.store.tunnelHolder(tenant.id);
    if (holder && holder !== ctx.hop.nodeId && (await forwardToNode(ctx.store, ctx.hop, holder, req, res))) {
      ctx.metrics.countLive('node');
      return;
    }
  }
  if (res.headersSent) return;
  if (client) {
    // Offline: a tenant that carried its client API says so; for the others there is none.
    if (!ctx.tunnels.clientsWanted(tenant)) {
      json(res, 404, { error: NOT_FOUND });
      return;
    }
    ctx.metrics.countLive('offline');
    json(res, 503, { error: OFFLINE }, { 'retry-after': '60' });
    return;
  }
  if (await answerFromCache(ctx.store, tenant, req, res, path)) {
    ctx.metrics.countLive('cache');
    return;
  }
  ctx.metrics.countLive('offline');
  res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '300' });
  res.end('The instance is offline right now; try again later.');
}

/**
 * A WebSocket upgrade at a tenant's host (the streaming API, `/api/v1/streaming`): carried through
 * the tunnel for a tenant that carries its client API, counted against the client's rate limit
 * like any client request. Refused with 404 where there is no client API (and on public paths,
 * which have no sockets), 429 beyond the limit, and 503 while the instance is offline. A tunnel
 * held by another relay process (PostgreSQL mode) does not carry sockets that arrive here: 503.
 */
export function serveLiveUpgrade(ctx: LiveContext, tenant: Tenant, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const path = req.url ?? '/';
  const pathname = new URL(path, 'http://relay.invalid').pathname;
  if (isPublicPath(pathname)) {
    refuseUpgrade(socket, 404, 'Not Found');
    return;
  }
  const limit = ctx.clientLimiter.take(ctx.clientAddress(req));
  if (!limit.ok) {
    refuseUpgrade(socket, 429, TOO_MANY, limit.headers);
    return;
  }
  const session = ctx.tunnels.session(tenant.id);
  if (session ? !session.clients : !ctx.tunnels.clientsWanted(tenant)) {
    refuseUpgrade(socket, 404, NOT_FOUND);
    return;
  }
  if (!session) {
    ctx.metrics.countLive('offline');
    refuseUpgrade(socket, 503, OFFLINE, { 'Retry-After': '60' });
    return;
  }
  // The upgrade's own headers are the relay's to answer; the subprotocol (masto sends the access
  // token as one) goes to the instance, which chooses.
  const headers: [string, string][] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] as string).toLowerCase();
    if (!HOP_BY_HOP.has(name) && !name.startsWith('sec-websocket-')) headers.push([req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string]);
  }
  const protocol = req.headers['sec-websocket-protocol'];
  if (protocol) headers.push(['Sec-WebSocket-Protocol', protocol]);
  ctx.metrics.countLive('tunnel');
  session.openSocket(ctx.clientSockets, req, socket, head, path, headers);
}
