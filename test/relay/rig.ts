import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveRelayConfig } from '../../relay/config.js';
import { createRelay, type Relay } from '../../relay/server.js';
import { newEnrolmentCode } from '../../relay/cli.js';
import { tenantOrigin } from '../../relay/hosts.js';
import { hashCode } from '../../relay/tunnel/server.js';
import { freePort } from '../federation/helpers.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';

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

/**
 * Starts a relay with a fresh SQLite store (or the given PostgreSQL URL) on all addresses of a
 * free port, so that tenants can have hosts on other loopback addresses (`127.0.0.5:PORT`), under
 * --allow-loopback.
 */
export async function startRelay(options: { databaseUrl?: string; dataDir?: string } = {}): Promise<TestRelay> {
  const port = await freePort('127.0.0.1');
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'hearth-relay-'));
  const relay = await createRelay({
    ...resolveRelayConfig({ dataDir, port, bind: '0.0.0.0', domain: `127.0.0.1:${port}`, databaseUrl: options.databaseUrl, allowLoopback: true }),
  });
  await relay.listen();
  return {
    relay,
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    async addTenant(host, quotaBytes = 1024 * 1024 * 1024) {
      const code = newEnrolmentCode();
      const now = Date.now();
      await relay.store.addTenant({ host, origin: tenantOrigin(host, true), codeHash: hashCode(code), codeExpiresAt: now + 3_600_000, quotaBytes, now });
      return code;
    },
    async close() {
      await relay.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Starts an instance that federates through `relay` at `host` (a tenant added here first). */
export async function startRelayedInstance(relay: TestRelay, host: string, extra: { clients?: boolean } = {}): Promise<TestInstance & { origin: string }> {
  const code = await relay.addTenant(`${host}:${relay.port}`);
  const inst = await startInstance({ relay: relay.url, relayCode: code, federationAllowLoopback: true, relayClients: extra.clients ?? false });
  await inst.app.relay?.whenConnected(10_000);
  return Object.assign(inst, { origin: `http://${host}:${relay.port}` });
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
