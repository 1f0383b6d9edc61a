import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerFromCache } from './cache.js';
import { isPublicPath } from './hosts.js';
import type { RelayMetrics } from './metrics.js';
import type { RateLimiter } from './rate-limit.js';
import type { RelayStore, Tenant } from './store/types.js';
import type { TunnelServer } from './tunnel/server.js';
import { forwardToNode, type NodeHop } from './nodes.js';

/** What answering a tenant's live requests needs. */
export interface LiveContext {
  store: RelayStore;
  tunnels: TunnelServer;
  metrics: RelayMetrics;
  clientLimiter: RateLimiter;
  hop: NodeHop;
  /** The client's address (behind a proxy on this machine, the one it names). */
  clientAddress(req: IncomingMessage): string;
}

function json(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), ...extra });
  res.end(text);
}

/**
 * Any request to a tenant's host but an inbox POST. While the instance is connected it is carried
 * through the tunnel with its method, path, Host and headers intact, and the answer streams back;
 * a GET the instance does not answer in time, or any GET while it is offline, is answered from the
 * cache of public documents the instance published. Nothing is ever answered 404 or 410 for lack of
 * the instance: what is neither reachable nor cached gets 503 (peers try again; a 404 on an actor
 * would make Mastodon delete the account). The client API (`--relay-clients`) is carried only for
 * a tenant that asked for it, and answers 503 with a Mastodon-style error while it is offline.
 */
export async function serveLive(ctx: LiveContext, tenant: Tenant, req: IncomingMessage, res: ServerResponse, forwardedFromNode: boolean): Promise<void> {
  const path = req.url ?? '/';
  const pathname = new URL(path, 'http://relay.invalid').pathname;
  const client = !isPublicPath(pathname);
  if (client) {
    if (!ctx.tunnels.clientsWanted(tenant.id) && !ctx.tunnels.session(tenant.id)?.clients) {
      json(res, 404, { error: 'Record not found' });
      return;
    }
    const limit = ctx.clientLimiter.take(ctx.clientAddress(req));
    if (!limit.ok) {
      json(res, 429, { error: 'Too many requests' }, limit.headers);
      return;
    }
  }
  const session = ctx.tunnels.session(tenant.id);
  if (session && (!client || session.clients)) {
    if (await session.forward(req, res, path)) {
      ctx.metrics.countLive('tunnel');
      return;
    }
  } else if (!session && !forwardedFromNode) {
    // Another relay process may hold the tunnel (PostgreSQL mode): hand the request over.
    const holder = await ctx.store.tunnelHolder(tenant.id);
    if (holder && holder !== ctx.hop.nodeId && (await forwardToNode(ctx.store, ctx.hop, holder, req, res))) {
      ctx.metrics.countLive('node');
      return;
    }
  }
  if (res.headersSent) return;
  if (!client && (await answerFromCache(ctx.store, tenant, req, res, path))) {
    ctx.metrics.countLive('cache');
    return;
  }
  ctx.metrics.countLive('offline');
  if (client) {
    json(res, 503, { error: 'This instance is offline right now: its computer is asleep or not connected. Try again later.' }, { 'retry-after': '60' });
    return;
  }
  res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '300' });
  res.end('The instance is offline right now; try again later.');
}
