import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express, { type Express } from 'express';
import { normalizeOrigin, type Config } from './config.js';
import type { RelayEnrolmentRow } from './db/repos/relay.js';
import type { RelayConnector } from './relay/index.js';
import type { Deps } from './core/deps.js';
import { Events } from './core/events.js';
import { startScheduler, type Scheduler } from './core/jobs/scheduler.js';
import { startImports, type ImportJob } from './core/imports/runner.js';
import { installLists } from './core/lists/install.js';
import { installMail } from './core/mail/install.js';
import { installMedia } from './core/media/install.js';
import { installNotifications } from './core/notifications/listeners.js';
import { installSuggestions } from './core/suggestions/install.js';
import { installTimelines } from './core/timelines/install.js';
import { installWebhooks } from './core/webhooks/install.js';
import { openDatabase, type Db } from './db/connection.js';
import { migrate } from './db/migrate.js';
import { startRemoteMediaCache, type RemoteMediaCache } from './core/media/remote-cache.js';
import type { HearthFederation } from './federation/index.js';
import { registerAll } from './http/index.js';
import { bodyParsers } from './http/middleware/body.js';
import { cors } from './http/middleware/cors.js';
import { answerClientError, errorHandler, notFoundHandler } from './http/middleware/errors.js';
import { appShell } from './http/app-shell.js';
import { hostAllowList } from './http/middleware/host.js';
import { ipAccess } from './http/middleware/ip-access.js';
import { rateLimits } from './http/middleware/rate-limit.js';
import { requestBase } from './http/middleware/request-base.js';
import { Routes, type RouteInfo } from './http/routes.js';
import { installStreaming, streamingHttp } from './streaming/index.js';
import { http } from './util/node-http.js';
import { allowedHostNames } from './util/hosts.js';
import type { HttpsListener } from './tls/listener.js';
import { createUris, UrisScope, type Uris } from './util/uris.js';

/** A composed instance: database, core dependencies and the HTTP server, not yet listening. */
export interface HearthApp {
  readonly deps: Deps;
  readonly express: Express;
  /** Every route with its declared auth and scopes. */
  readonly routes: readonly RouteInfo[];
  /** Starts listening on the configured bind address and port; resolves to the local URL. */
  listen(): Promise<string>;
  /** The HTTP server, once listening. */
  readonly server: Server | null;
  /** The HTTPS listener for local clients, once listening, when `httpsPort` is set. */
  readonly https: HttpsListener | null;
  /** Federation (Fedify), when the instance has a public origin. */
  readonly federation: HearthFederation | null;
  /** The remote media copy job, once listening. */
  readonly remoteMedia: RemoteMediaCache | null;
  /** The relay connector, once listening, when the instance federates through a relay. */
  readonly relay: RelayConnector | null;
  /** Stops the server and closes the database. */
  close(): Promise<void>;
}

/** Path of the SQLite file inside a data directory. */
export function databasePath(dataDir: string): string {
  return join(dataDir, 'hearth.sqlite3');
}

/** Opens and migrates the database of a data directory (also used by CLI commands). */
export function openDataDir(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true });
  const db = openDatabase(databasePath(dataDir));
  migrate(db);
  return db;
}

/**
 * The composition root: opens the database, wires core, HTTP (and later federation and streaming)
 * together. Nothing listens until `listen()`.
 */
export async function createApp(given: Config): Promise<HearthApp> {
  let config = given;
  const db = openDataDir(config.dataDir);
  // An instance that federates through a relay enrols on its first start (with the code) and takes
  // its public origin from the enrolment, unless it has one of its own (a domain pointed at the relay).
  let enrolment: RelayEnrolmentRow | null = null;
  if (config.relay) {
    const { ensureEnrolment } = await import('./relay/enrol.js');
    try {
      enrolment = await ensureEnrolment(db, config.relay, config.relayCode, config.relayClients);
    } catch (err) {
      db.close();
      throw err;
    }
    config = { ...config, origin: config.origin ?? normalizeOrigin(enrolment.origin, config.federationAllowLoopback) };
  }
  // The connector is loaded only for an instance with a relay (its WebSocket client and all).
  const relayModule = enrolment ? await import('./relay/index.js') : null;
  const events = new Events();
  // With a public origin every URL is built from it (the instance's identity); a local-only
  // instance builds them from the address each request came to (see UrisScope).
  const fixedUris: Uris | null = config.origin ? createUris(config.origin, { remoteMedia: config.remoteMedia }) : null;
  const scope = new UrisScope(`http://${config.bind.includes(':') ? `[${config.bind}]` : config.bind}:${config.port}`, { remoteMedia: config.remoteMedia });
  const deps: Deps = {
    db,
    config,
    events,
    get uris() {
      return fixedUris ?? scope.current;
    },
  };
  installNotifications(deps);
  installTimelines(deps);
  installMedia(deps);
  installLists(deps);
  installSuggestions(deps);
  installWebhooks(deps);
  installMail(deps);

  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('etag', false);
  app.use(hostAllowList(allowedHostNames(config), !config.origin));
  app.use(cors);
  app.use(ipAccess(deps));
  // Federation only with a public origin; mounted before the body parsers (inbox bodies are read raw).
  // Loaded only then: Fedify and its dependencies take tens of MiB that a local-only instance never uses.
  const federation: HearthFederation | null = config.origin ? (await import('./federation/index.js')).createHearthFederation(deps, config.origin) : null;
  if (federation) app.use(...federation.middleware);
  const routes = new Routes(deps);
  await registerAll(routes);
  // Before the body is read: a request over its limit is refused without reading an upload.
  app.use(rateLimits(deps));
  // Uploads are spooled in the data directory (beside the media they become); a multipart body is
  // read only once its route's token and scope check out, so a refused upload is never written.
  app.use(bodyParsers(config.maxBodyBytes, { uploadDir: join(config.dataDir, 'uploads'), admit: (req) => routes.admission(req) }));
  if (!config.origin) {
    app.use(requestBase(scope));
    // host-meta answers without federation too (clients look for it), at the request's address.
    app.use((await import('./federation/express.js')).hostMeta(() => deps.uris.base));
  }
  app.use(streamingHttp(deps));
  app.use(routes.router);
  app.use(appShell(config.origin ?? null));
  app.use(notFoundHandler);
  app.use(errorHandler);

  let server: Server | null = null;
  let httpsListener: HttpsListener | null = null;
  let scheduler: Scheduler | null = null;
  let stopStreaming: (() => void) | null = null;
  let remoteMedia: RemoteMediaCache | null = null;
  let relay: RelayConnector | null = null;
  let imports: ImportJob | null = null;
  const startHttps = async () => {
    const { startHttpsListener } = await import('./tls/listener.js');
    httpsListener = await startHttpsListener(app, config);
    httpsListener.server.on('clientError', answerClientError);
  };
  return {
    deps,
    express: app,
    federation,
    routes: routes.table,
    get server() {
      return server;
    },
    get https() {
      return httpsListener;
    },
    get remoteMedia() {
      return remoteMedia;
    },
    get relay() {
      return relay;
    },
    listen() {
      return new Promise((resolve, reject) => {
        // Without a Host, and with two, a request is a 400 with a JSON body from the Host check
        // (Node's own answer to a missing one has no body); so is a request Node cannot parse.
        const s = http.createServer({ requireHostHeader: false }, app);
        s.on('clientError', answerClientError);
        s.keepAliveTimeout = 65_000;
        const serving = (local: string) => {
          stopStreaming = installStreaming(deps, httpsListener ? [s, httpsListener.server] : [s]);
          // Timed work (scheduled statuses, poll expiry) starts once the instance serves.
          scheduler ??= startScheduler(deps);
          remoteMedia ??= startRemoteMediaCache(deps);
          // Imports (moving house) go on where the last run left them.
          imports ??= startImports(deps);
          // The connector first: the federation's requests go through it from the start.
          if (enrolment && federation && relayModule) {
            const localUrl = local.replace('0.0.0.0', '127.0.0.1');
            const origin = deps.uris.base;
            relay ??= relayModule.startRelayConnector(deps, federation, enrolment, localUrl, {
              clients: config.relayClients,
              publisher: (channel) => relayModule.startPublisher(deps, channel, { localUrl, origin }),
            });
          }
          federation?.start();
          resolve(local);
        };
        s.once('error', reject);
        s.listen(config.port, config.bind, () => {
          const { port } = s.address() as AddressInfo;
          const host = config.bind.includes(':') ? `[${config.bind}]` : config.bind;
          const local = `http://${host}:${port}`;
          // Outside requests, local-only instances use their local address; it is only known now when port 0 was asked.
          scope.setFallback(local);
          server = s;
          if (config.httpsPort === null) {
            serving(local);
            return;
          }
          // The HTTPS listener serves the same app; failing to start it (its port taken, the tls/
          // folder not writable) fails listen() as a taken HTTP port does.
          startHttps().then(
            () => serving(local),
            (err: unknown) => {
              server = null;
              s.closeAllConnections();
              s.close(() => reject(err instanceof Error ? err : new Error(String(err))));
            },
          );
        });
      });
    },
    async close() {
      // The import job drops its lookups in flight before federation and the database go.
      imports?.stop();
      imports = null;
      // First the relay's intake: no more replayed deliveries, and the cache publisher (which reads
      // from the listener about to close) stops, so that deliveries no longer wait for it.
      await relay?.pause();
      if (server) {
        const s = server;
        server = null;
        // Upgraded WebSocket sockets are not HTTP connections any more: streaming ends them.
        stopStreaming?.();
        stopStreaming = null;
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
      await httpsListener?.close();
      httpsListener = null;
      await scheduler?.stop();
      await remoteMedia?.stop();
      remoteMedia = null;
      // The tunnel stays up while the queues finish (deliveries in hand leave through it), then closes.
      await federation?.stop();
      await relay?.stop();
      relay = null;
      scheduler = null;
      db.close();
    },
  };
}
