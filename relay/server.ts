import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type * as Http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { RelayConfig } from './config.js';
import { makeAgents } from './egress.js';
import { hostWithoutPort, isInboxPath, normalizeHost } from './hosts.js';
import { acceptInbox } from './inbound.js';
import { loadRelayActor, relayActorDocument } from './keys.js';
import { serveLive, serveLiveUpgrade, type LiveContext } from './live.js';
import { RelayMetrics } from './metrics.js';
import { HOP_HEADER, type NodeHop } from './nodes.js';
import { RETENTION_MS, DEDUPE_WINDOW_MS, TUNNEL_PATH } from './protocol.js';
import { RateLimiter } from './rate-limit.js';
import { openRelayStore } from './store/index.js';
import type { RelayStore, Tenant } from './store/types.js';
import { TunnelServer } from './tunnel/server.js';
import { ClientSocketServer, refuseUpgrade } from './tunnel/sockets.js';
import { EdgeVerifier } from './verify.js';

const require = createRequire(import.meta.url);
const http = require('node:http') as typeof Http;

/** A running relay. */
export interface Relay {
  readonly store: RelayStore;
  readonly metrics: RelayMetrics;
  readonly tunnels: TunnelServer;
  /** Starts listening; resolves to the local URL. */
  listen(): Promise<string>;
  readonly server: Server;
  close(): Promise<void>;
}

/** How long a tenant found by host is trusted before it is looked up again. */
const TENANT_TTL_MS = 5000;

/** How often retention runs (messages older than 30 days, repeat hashes older than 14). */
const EXPIRE_EVERY_MS = 10 * 60 * 1000;

/**
 * The relay: one HTTP listener behind the operator's TLS proxy, routing by Host. The relay's own
 * domain serves the tunnel endpoint, health, metrics and the relay's actor; every other host is a
 * tenant's public host, whose inbox POSTs are stored and forwarded and whose other requests go
 * through the tunnel or come from the cache.
 */
export async function createRelay(config: RelayConfig): Promise<Relay> {
  const store = await openRelayStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, serving: true });
  const scheme = config.allowLoopback && (normalizeHost(config.domain)?.includes(':') ?? false) ? 'http' : 'https';
  const base = `${scheme}://${config.domain}`;
  const actor = await loadRelayActor(store, base);
  const userAgent = `HearthRelay/0.1 (+${base})`;
  const verifier = new EdgeVerifier(actor, { allowPrivateAddress: config.allowLoopback, userAgent });
  const metrics = new RelayMetrics();
  const agents = makeAgents(config.allowLoopback);
  const nodeId = randomUUID();
  const hop: NodeHop = { nodeId, secret: await store.initMeta('node_secret', randomBytes(32).toString('base64url')) };
  const tunnels = new TunnelServer({ store, metrics, agents, allowPrivate: config.allowLoopback, domain: config.domain, nodeId });
  const stopSignals = await store.onSignal((signal) => tunnels.onSignal(signal));
  const clientLimiter = new RateLimiter(config.clientRateLimit);
  const clientSockets = new ClientSocketServer();

  const tenantCache = new Map<string, { tenant: Tenant; until: number }>();
  async function tenantFor(host: string): Promise<Tenant | null> {
    const hit = tenantCache.get(host);
    if (hit && hit.until > Date.now()) return hit.tenant;
    const tenant = await store.tenantByHost(host);
    if (tenant) tenantCache.set(host, { tenant, until: Date.now() + TENANT_TTL_MS });
    else tenantCache.delete(host);
    return tenant;
  }
  const cacheSizes = new Map<string, { bytes: number; until: number }>();
  async function cacheBytes(tenantId: string): Promise<number> {
    const hit = cacheSizes.get(tenantId);
    if (hit && hit.until > Date.now()) return hit.bytes;
    const bytes = await store.cacheBytes(tenantId);
    cacheSizes.set(tenantId, { bytes, until: Date.now() + 10_000 });
    return bytes;
  }
  /** The client's address; a proxy on this machine (the TLS terminator) names it in X-Forwarded-For. */
  function clientAddress(req: IncomingMessage): string {
    const peer = req.socket.remoteAddress ?? '';
    const forwarded = req.headers['x-forwarded-for'];
    if ((peer === '127.0.0.1' || peer === '::1' || peer === '::ffff:127.0.0.1') && typeof forwarded === 'string') {
      return forwarded.split(',').at(-1)?.trim() || peer;
    }
    return peer;
  }
  const live: LiveContext = { store, tunnels, metrics, clientLimiter, clientSockets, hop, clientAddress };

  async function relayOwn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://relay.invalid').pathname;
    if (path === '/health') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
    } else if (path === '/metrics') {
      const tenants = await store.listTenants();
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(metrics.render(tenants, tunnels.connected));
    } else if (path === '/actor') {
      res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(relayActorDocument(actor, config.domain)));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = normalizeHost(req.headers.host);
    if (!host) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad Host');
      return;
    }
    if (host === config.domain || (hostWithoutPort(host) === hostWithoutPort(config.domain) && !(await tenantFor(host)))) {
      await relayOwn(req, res);
      return;
    }
    const tenant = await tenantFor(host);
    // A tenant on a plain-HTTP IP host (tests and experiments) is served only under --allow-loopback.
    if (!tenant || (tenant.origin.startsWith('http:') && !config.allowLoopback)) {
      // A health check by address (a load balancer, a script on the machine) gets its answer too.
      if (new URL(req.url ?? '/', 'http://relay.invalid').pathname === '/health') res.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
      else res.writeHead(421, { 'content-type': 'text/plain' }).end('Misdirected Request: no instance at this host');
      return;
    }
    const pathname = new URL(req.url ?? '/', 'http://relay.invalid').pathname;
    if (req.method === 'POST' && isInboxPath(pathname)) {
      await acceptInbox({ store, verifier, metrics, cacheBytes }, tenant, req, res);
      return;
    }
    const fromNode = req.headers[HOP_HEADER] === hop.secret;
    await serveLive(live, tenant, req, res, fromNode);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      console.error('relay: request failed', err);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    void upgrade(req, socket, head).catch(() => socket.destroy());
  });

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const host = normalizeHost(req.headers.host);
    const pathname = new URL(req.url ?? '/', 'http://relay.invalid').pathname;
    if (host === config.domain && pathname === TUNNEL_PATH) {
      tunnels.handleUpgrade(req, socket, head);
      return;
    }
    const tenant = host ? await tenantFor(host) : null;
    if (!tenant || (tenant.origin.startsWith('http:') && !config.allowLoopback)) {
      if (host === config.domain) refuseUpgrade(socket, 404, 'Not Found');
      else refuseUpgrade(socket, 421, 'Misdirected Request: no instance at this host');
      return;
    }
    // Client WebSockets (the streaming API) reach a tenant that carries its client API and is online.
    serveLiveUpgrade(live, tenant, req, socket, head);
  }

  const expiry = setInterval(() => {
    const now = Date.now();
    void store.expire(now - RETENTION_MS, now - DEDUPE_WINDOW_MS).catch((err: unknown) => console.error('relay: retention failed', err));
  }, EXPIRE_EVERY_MS);
  expiry.unref();
  let nodeBeat: NodeJS.Timeout | null = null;

  return {
    store,
    metrics,
    tunnels,
    server,
    listen() {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.bind, () => {
          const { port } = server.address() as AddressInfo;
          const local = `http://${config.bind.includes(':') ? `[${config.bind}]` : config.bind}:${port}`;
          const url = config.nodeUrl ?? local;
          const beat = () => void store.heartbeatNode({ id: nodeId, url, seenAt: Date.now() }).catch(() => {});
          beat();
          nodeBeat = setInterval(beat, 30_000);
          nodeBeat.unref();
          resolve(local);
        });
      });
    },
    async close() {
      clearInterval(expiry);
      if (nodeBeat) clearInterval(nodeBeat);
      await tunnels.close();
      clientSockets.close();
      await stopSignals();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agents.http.destroy();
      agents.https.destroy();
      await store.close();
    },
  };
}
