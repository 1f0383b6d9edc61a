import { resolve } from 'node:path';

/** How a relay runs: `hearth relay serve` flags. */
export interface RelayConfig {
  /** Directory of the relay's SQLite database (and nothing else when PostgreSQL is used). */
  dataDir: string;
  port: number;
  bind: string;
  /**
   * The relay's own host (`relay.example`): the tunnel endpoint, health, metrics and the relay's
   * actor live there; every other host is a tenant's.
   */
  domain: string;
  /** `postgres://…` for a relay with many tenants; null for SQLite in `dataDir`. */
  databaseUrl: string | null;
  /**
   * Tests and experiments only: tenants may have `http://` hosts on IP addresses (with a port),
   * and the relay may deliver to and fetch from loopback and private addresses.
   */
  allowLoopback: boolean;
  /** Base URL other relay processes use to reach this one (PostgreSQL mode); defaults to the listener's. */
  nodeUrl: string | null;
  /** Quota of a new tenant, in bytes (backlog and cache together). */
  defaultQuotaBytes: number;
  /**
   * Requests one client address may make in five minutes to the client API of the tenants that
   * carry it (`--relay-clients`); federation and public documents are not counted.
   */
  clientRateLimit: number;
}

/** Quota of a new tenant unless `tenant add --quota` says otherwise: 1 GiB. */
export const DEFAULT_QUOTA_BYTES = 1024 * 1024 * 1024;

/**
 * Client API requests per address in five minutes unless `--client-rate-limit` says otherwise:
 * twice Mastodon's limit per IP (300), since one address is often a family's phones behind a router.
 */
export const DEFAULT_CLIENT_RATE_LIMIT = 600;

/** Port `hearth relay serve` listens on when none is given. */
export const DEFAULT_RELAY_PORT = 7480;

/** Options as they come from flags, before defaults. */
export interface RelayConfigInput {
  dataDir?: string | undefined;
  port?: string | number | undefined;
  bind?: string | undefined;
  domain?: string | undefined;
  databaseUrl?: string | undefined;
  allowLoopback?: boolean | undefined;
  nodeUrl?: string | undefined;
  clientRateLimit?: string | number | undefined;
}

/** Applies the defaults and checks the values; throws with a message for the command line. */
export function resolveRelayConfig(input: RelayConfigInput): RelayConfig {
  if (!input.dataDir) throw new Error('missing --data DIR');
  const port = input.port === undefined ? DEFAULT_RELAY_PORT : Number(input.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port: ${String(input.port)}`);
  const bind = input.bind ?? '127.0.0.1';
  const domain = (input.domain ?? `${bind.includes(':') ? `[${bind}]` : bind}:${port}`).trim().toLowerCase();
  const databaseUrl = input.databaseUrl ?? null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new Error('--database must be a postgres:// URL');
  const clientRateLimit = input.clientRateLimit === undefined ? DEFAULT_CLIENT_RATE_LIMIT : Number(input.clientRateLimit);
  if (!Number.isInteger(clientRateLimit) || clientRateLimit < 1) throw new Error(`invalid --client-rate-limit: ${String(input.clientRateLimit)}`);
  return {
    dataDir: resolve(input.dataDir),
    port,
    bind,
    domain,
    databaseUrl,
    allowLoopback: input.allowLoopback ?? false,
    nodeUrl: input.nodeUrl ?? null,
    defaultQuotaBytes: DEFAULT_QUOTA_BYTES,
    clientRateLimit,
  };
}
