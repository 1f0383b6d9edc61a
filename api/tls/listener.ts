import type { RequestListener } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import type { Config } from '../config.js';
import { isLoopbackAddress, isWildcardAddress, networkAddresses } from '../util/hosts.js';
import { spkiHash, type TlsNames } from './authority.js';
import { ensureCertificates, type TlsMaterial } from './store.js';

/**
 * The HTTPS listener for local clients: web clients such as Phanpy and Elk only speak https://,
 * and phones and other computers on the network need it too. It serves the same Express app (and,
 * through the caller, the same streaming) as the HTTP port, on the same bind address, with a
 * certificate from the instance's own local authority (see store.ts).
 */

/** How often a running listener checks whether its certificate needs renewing. */
const RENEW_CHECK_MS = 12 * 60 * 60 * 1000;

/** A running HTTPS listener. */
export interface HttpsListener {
  readonly server: Server;
  /** `https://hearth.localhost:7471`: the address to give clients. */
  readonly url: string;
  readonly port: number;
  /** The authority's certificate file: what devices must trust. */
  readonly caFile: string;
  /** The base64 SHA-256 of the authority's public key (Chromium's `--ignore-certificate-errors-spki-list`). */
  readonly caSpki: string;
  /** What was made or loaded at start. */
  readonly material: TlsMaterial;
  /** Checks the certificate now and swaps in a renewed one (the timer does this twice a day). */
  renew(now?: Date): Promise<TlsMaterial>;
  /** Stops listening and ends its connections. */
  close(): Promise<void>;
}

/**
 * What the certificate must name: the configured names (DNS names and addresses), `localhost` and
 * the loopback addresses, and the addresses the listener is reached at from the network: the bind
 * address, or every IPv4 address of the machine when it binds them all.
 */
export function certificateNames(config: Pick<Config, 'bind' | 'httpsNames'>): TlsNames {
  const dns: string[] = [];
  const ips: string[] = [];
  for (const name of [...config.httpsNames, 'localhost']) (isIP(name) ? ips : dns).push(name);
  ips.push('127.0.0.1', '::1');
  const bind = config.bind.replace(/^\[|\]$/g, '');
  if (isWildcardAddress(config.bind)) ips.push(...networkAddresses().filter((a) => isIP(a) === 4));
  else if (isIP(bind) && !isLoopbackAddress(bind)) ips.push(bind);
  return { dns: [...new Set(dns)], ips: [...new Set(ips)] };
}

function hostPart(name: string): string {
  return isIP(name) === 6 ? `[${name}]` : name;
}

/** Starts the HTTPS listener on `config.httpsPort`, making or renewing its certificates first. */
export async function startHttpsListener(handler: RequestListener, config: Pick<Config, 'dataDir' | 'bind' | 'httpsPort' | 'httpsNames'>): Promise<HttpsListener> {
  const names = certificateNames(config);
  let material = await ensureCertificates(config.dataDir, names);
  const server = createServer({ key: material.key, cert: material.chain, minVersion: 'TLSv1.2' }, handler);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.httpsPort ?? 0, config.bind, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const caFile = material.files.caCert;
  let caSpki = spkiHash(material.ca);
  const renew = async (now: Date = new Date()) => {
    const next = await ensureCertificates(config.dataDir, names, now);
    if (next.madeLeaf) {
      // New TLS connections get the new certificate; open ones keep theirs.
      server.setSecureContext({ key: next.key, cert: next.chain, minVersion: 'TLSv1.2' });
      caSpki = spkiHash(next.ca);
    }
    if (next.madeAuthority) console.warn(`Hearth made a new local certificate authority: trust ${caFile} again on every device (see the README).`);
    material = next;
    return next;
  };
  const timer = setInterval(() => {
    renew().catch((err: unknown) => console.error('https: the certificate could not be renewed', err));
  }, RENEW_CHECK_MS).unref();
  return {
    server,
    url: `https://${hostPart(config.httpsNames[0] ?? 'hearth.localhost')}:${port}`,
    port,
    caFile,
    get caSpki() {
      return caSpki;
    },
    get material() {
      return material;
    },
    renew,
    async close() {
      clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
