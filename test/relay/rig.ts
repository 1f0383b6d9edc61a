import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveRelayConfig, type RelayConfig } from '../../relay/config.js';
import { createRelay, type Relay } from '../../relay/server.js';
import { newEnrolmentCode } from '../../relay/cli.js';
import { tenantOrigin } from '../../relay/hosts.js';
import { hashCode } from '../../relay/tunnel/server.js';
import { freePort } from '../federation/helpers.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

/** A relay started in this process, on loopback, with what tests need to add tenants. */
export interface TestRelay {
  relay: Relay;
  /** `http://127.0.0.1:PORT`: the relay's own host (the tunnel endpoint). */
  url: string;
  port: number;
  dataDir: string;
  /** Adds a tenant at `host` (an IP address with the relay's port); returns its enrolment code. */
  addTenant(host: string, quotaBytes?: number): Promise<string>;
  close(): Promise<void>;
}

/** A relay of startRelay: it can also be stopped and started again on the same port and store. */
export interface RelayRig extends TestRelay {
  /** The relay's storage backend. */
  readonly backend: RelayBackend;
  /** This process's own listener (`http://127.0.0.1:PORT`), whatever the relay's domain. */
  readonly local: string;
  stop(): Promise<void>;
  /** Starts the relay again (after `stop`) with the same configuration; `relay` is the new one. */
  restart(): Promise<void>;
}

/** The relay's storage backends: every in-process relay suite runs on both. */
export const RELAY_BACKENDS = ['sqlite', 'postgres'] as const;
export type RelayBackend = (typeof RELAY_BACKENDS)[number];

/**
 * Databases for a test file's relays: SQLite needs none (each relay has its data directory);
 * PostgreSQL gets one server for the whole file, started on first use, and a new database per
 * relay (or per cluster). Stop it in the file's afterAll.
 */
export class RelayDatabases {
  private server: Promise<TestPostgres> | null = null;

  /** A fresh database URL for `backend` (undefined for SQLite: the relay's data directory). */
  async url(backend: RelayBackend): Promise<string | undefined> {
    if (backend === 'sqlite') return undefined;
    this.server ??= startPostgres();
    return (await this.server).createDatabase();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await (await server).stop();
  }
}

/**
 * Starts a relay with a fresh SQLite store (or the given PostgreSQL URL) on all addresses of a
 * free port, so that tenants can have hosts on other loopback addresses (`127.0.0.5:PORT`), under
 * --allow-loopback. `domain` is the relay's own host, by default `127.0.0.1:PORT`; the processes
 * of one relay sharing a PostgreSQL database share it (the address their balancer answers at).
 */
export async function startRelay(
  options: { databaseUrl?: string | undefined; dataDir?: string; domain?: string; overrides?: Partial<RelayConfig> } = {},
): Promise<RelayRig> {
  const port = await freePort('127.0.0.1');
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'hearth-relay-'));
  const local = `http://127.0.0.1:${port}`;
  const config: RelayConfig = {
    ...resolveRelayConfig({ dataDir, port, bind: '0.0.0.0', domain: options.domain ?? `127.0.0.1:${port}`, databaseUrl: options.databaseUrl, allowLoopback: true, nodeUrl: local }),
    ...options.overrides,
  };
  const start = async () => {
    const relay = await createRelay(config);
    await relay.listen();
    return relay;
  };
  let stopped = false;
  const rig: RelayRig = {
    relay: await start(),
    backend: options.databaseUrl ? 'postgres' : 'sqlite',
    url: `http://${config.domain}`,
    local,
    port,
    dataDir,
    async addTenant(host, quotaBytes = 1024 * 1024 * 1024) {
      const code = newEnrolmentCode();
      const now = Date.now();
      await rig.relay.store.addTenant({ host, origin: tenantOrigin(host, true), codeHash: hashCode(code), codeExpiresAt: now + 3_600_000, quotaBytes, now });
      return code;
    },
    async stop() {
      stopped = true;
      await rig.relay.close();
    },
    async restart() {
      rig.relay = await start();
      stopped = false;
    },
    async close() {
      if (!stopped) await rig.relay.close();
      stopped = true;
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return rig;
}

/** Starts an instance that federates through `relay` at `host` (a tenant added here first). */
export async function startRelayedInstance(relay: TestRelay, host: string, extra: { clients?: boolean } = {}): Promise<TestInstance & { origin: string }> {
  const code = await relay.addTenant(`${host}:${relay.port}`);
  const inst = await startInstance({ relay: relay.url, relayCode: code, federationAllowLoopback: true, relayClients: extra.clients ?? false });
  await inst.app.relay?.whenConnected(10_000);
  return Object.assign(inst, { origin: `http://${host}:${relay.port}` });
}

/**
 * The address a relay's processes share (what their load balancer answers), as a plain TCP
 * forwarder on every loopback address of one port: each new connection goes to the process the
 * test points it at, or is refused while it points nowhere. Connections made stay where they went.
 */
export class FrontDoor {
  private target: number | null;
  private readonly open = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
    target: number | null,
  ) {
    this.target = target;
  }

  /** Starts forwarding to the relay process on port `target` (null: refusing until pointed). */
  static async start(target: number | null): Promise<FrontDoor> {
    const port = await freePort('127.0.0.1');
    let door: FrontDoor | null = null;
    const server = createServer((client) => door?.pass(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '0.0.0.0', resolve);
    });
    door = new FrontDoor(server, port, target);
    return door;
  }

  /** Sends new connections to the relay process listening on `port` (null: refuses them). */
  point(port: number | null): void {
    this.target = port;
  }

  private pass(client: Socket): void {
    if (this.target === null) {
      client.destroy();
      return;
    }
    const upstream = connect(this.target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.open.add(socket);
      socket.on('close', () => this.open.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  }

  close(): Promise<void> {
    for (const socket of this.open) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A plain HTTP request with an explicit Host (node:http: the process's fetch goes through a relay in these tests). */
export function httpRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, method: options.method ?? 'GET', path: `${target.pathname}${target.search}`, headers: { host: target.host, ...options.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
