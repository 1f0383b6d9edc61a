import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { DEFAULT_QUOTA_BYTES, resolveRelayConfig } from './config.js';
import { isIP } from 'node:net';
import { hostWithoutPort, tenantOrigin } from './hosts.js';
import { openRelayStore } from './store/index.js';
import { TenantExistsError } from './store/types.js';
import { hashCode } from './tunnel/server.js';

const USAGE = `Usage: hearth relay <command> [options]

Commands:
  serve                  run a relay
      --data DIR         data directory (the SQLite database, unless --database is given)
      --port N           port to listen on (default 7480)
      --bind ADDR        address to listen on (default 127.0.0.1; the TLS proxy in front reaches it)
      --domain D         the relay's own host, e.g. relay.example (default ADDR:PORT)
      --database URL     postgres://… to share one database among several relay processes
      --node-url URL     how the other relay processes reach this one (PostgreSQL; default the listener)
      --allow-loopback   tests and experiments only: http:// tenant hosts on IP addresses, and
                         loopback and private peers
      --client-rate-limit N
                         requests one address may make in five minutes to the client API of the
                         instances that let the relay carry it (--relay-clients) (default 600);
                         beyond it the relay answers 429. Federation is not counted. The address
                         is the peer's, or the one a proxy on this machine names in X-Forwarded-For
  tenant add --host H [--quota SIZE]
                         add an instance at host H (kim.relay.example, or its own domain pointed
                         here); prints only its one-time enrolment code (valid 7 days)
  tenant code --host H   print a new enrolment code for H (after the instance lost its tunnel key)
  tenant list            hosts, enrolment, backlog, cache and quota
  tenant remove --host H remove an instance and everything the relay holds for it
  tenant quota --host H --quota SIZE
                         set its quota (bytes, or with K, M, G: 500M, 2G; default 1G)

Every command takes --data DIR and --database URL.
`;

/** How long an enrolment code can be used. */
const CODE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

class UsageError extends Error {}

/** A fresh enrolment code: 80 random bits in four groups of Crockford base32. */
export function newEnrolmentCode(): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  const bytes = randomBytes(16);
  let out = '';
  for (let i = 0; i < 16; i++) out += alphabet[(bytes[i] as number) % 32];
  return out.match(/.{4}/g)?.join('-') ?? out;
}

function parseSize(value: string | undefined): number {
  if (value === undefined) return DEFAULT_QUOTA_BYTES;
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?$/i.exec(value.trim());
  if (!m) throw new UsageError(`not a size: ${value}`);
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }[(m[2] ?? '').toLowerCase()] ?? 1;
  return Math.round(Number(m[1]) * unit);
}

function formatSize(bytes: number): string {
  for (const [unit, size] of [['G', 1024 ** 3], ['M', 1024 ** 2], ['K', 1024]] as const) if (bytes >= size) return `${(bytes / size).toFixed(1)}${unit}`;
  return `${bytes}B`;
}

async function serve(config: ReturnType<typeof resolveRelayConfig>): Promise<number> {
  const { createRelay } = await import('./server.js');
  const relay = await createRelay(config);
  const local = await relay.listen();
  console.log(`Hearth relay ${config.domain} is listening on ${local} (${relay.store.kind})`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await relay.close();
  return 0;
}

async function tenant(sub: string | undefined, flags: Record<string, string | boolean | undefined>): Promise<number> {
  const config = resolveRelayConfig({ dataDir: flags.data as string | undefined, databaseUrl: flags.database as string | undefined });
  const allowLoopback = flags['allow-loopback'] === true;
  const store = await openRelayStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, serving: false });
  const host = typeof flags.host === 'string' ? flags.host.trim().toLowerCase() : undefined;
  const needHost = () => {
    if (!host) throw new UsageError('missing --host');
    return host;
  };
  try {
    switch (sub) {
      case 'add': {
        const h = needHost();
        // IP hosts (tests) are accepted here whatever the flag: serve decides whether it answers them.
        const origin = tenantOrigin(h, allowLoopback || isIP(hostWithoutPort(h)) !== 0);
        const code = newEnrolmentCode();
        const now = Date.now();
        await store.addTenant({ host: h, origin, codeHash: hashCode(code), codeExpiresAt: now + CODE_TTL_MS, quotaBytes: parseSize(flags.quota as string | undefined), now });
        process.stdout.write(`${code}\n`);
        return 0;
      }
      case 'code': {
        const code = newEnrolmentCode();
        if (!(await store.renewCode(needHost(), hashCode(code), Date.now() + CODE_TTL_MS))) throw new UsageError(`no tenant ${host}`);
        process.stdout.write(`${code}\n`);
        return 0;
      }
      case 'list': {
        for (const t of await store.listTenants()) {
          const shed = Object.values(t.shed).reduce((a, b) => a + b, 0);
          console.log(
            [t.host, t.origin, t.enrolledAt ? 'enrolled' : 'waiting for enrolment', `backlog ${t.backlogCount} (${formatSize(t.backlogBytes)})`, `cache ${formatSize(t.cacheBytes)}`, `quota ${formatSize(t.quotaBytes)}`, `shed ${shed}`].join('\t'),
          );
        }
        return 0;
      }
      case 'remove': {
        if (!(await store.removeTenant(needHost()))) throw new UsageError(`no tenant ${host}`);
        console.log(`removed ${host}`);
        return 0;
      }
      case 'quota': {
        if (!(await store.setQuota(needHost(), parseSize(flags.quota as string | undefined)))) throw new UsageError(`no tenant ${host}`);
        console.log(`quota of ${host}: ${formatSize(parseSize(flags.quota as string | undefined))}`);
        return 0;
      }
      default:
        throw new UsageError(`unknown tenant command: ${sub ?? '(none)'}`);
    }
  } finally {
    await store.close();
  }
}

/** `hearth relay …` (but `relay status`, which is the instance's): resolves to the exit code. */
export async function relayMain(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        data: { type: 'string' },
        port: { type: 'string' },
        bind: { type: 'string' },
        domain: { type: 'string' },
        database: { type: 'string' },
        'node-url': { type: 'string' },
        'allow-loopback': { type: 'boolean' },
        'client-rate-limit': { type: 'string' },
        host: { type: 'string' },
        quota: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    console.error(`hearth relay: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const flags = parsed.values;
  const [command, sub] = parsed.positionals;
  if (flags.help || !command) {
    console.log(USAGE);
    return command || flags.help ? 0 : 2;
  }
  try {
    if (command === 'serve') {
      return await serve(
        resolveRelayConfig({
          dataDir: flags.data,
          port: flags.port,
          bind: flags.bind,
          domain: flags.domain,
          databaseUrl: flags.database,
          allowLoopback: flags['allow-loopback'],
          nodeUrl: flags['node-url'],
          clientRateLimit: flags['client-rate-limit'],
        }),
      );
    }
    if (command === 'tenant') return await tenant(sub, flags);
    throw new UsageError(`unknown relay command: ${command}`);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`hearth relay: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    if (err instanceof TenantExistsError) {
      console.error(`hearth relay: ${err.message}`);
      return 1;
    }
    console.error(`hearth relay: ${(err as Error).message}`);
    return 1;
  }
}
