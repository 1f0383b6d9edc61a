import { isIP } from 'node:net';

/**
 * Host names as the relay routes by them: the Host header, lower case, with its port when it has
 * one (`kim.relay.example`, `127.0.0.4:8080`). Null for a missing or malformed header.
 */
export function normalizeHost(header: string | undefined): string | null {
  if (!header) return null;
  const value = header.trim().toLowerCase().replace(/\.$/, '');
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(value)) return null;
  return value;
}

/** The host without its port (IPv6 without brackets). */
export function hostWithoutPort(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/**
 * Checks a tenant host and gives its public origin. A tenant is a DNS name served over HTTPS
 * (`kim.relay.example`, or the tenant's own domain pointed at the relay); under `allowLoopback`
 * (tests and experiments) an IP address with a port is accepted too, served over plain HTTP.
 */
export function tenantOrigin(host: string, allowLoopback: boolean): string {
  const normalized = normalizeHost(host);
  if (!normalized || normalized !== host.trim().toLowerCase()) throw new Error(`not a host name: ${host}`);
  const bare = hostWithoutPort(normalized);
  if (isIP(bare)) {
    if (!allowLoopback) throw new Error(`an IP address is a tenant host only with --allow-loopback: ${host}`);
    return `http://${normalized}`;
  }
  if (normalized.includes(':')) {
    if (!allowLoopback) throw new Error(`a tenant host has no port (the relay sits behind a TLS proxy on 443): ${host}`);
    return `http://${normalized}`;
  }
  if (!bare.includes('.')) throw new Error(`a tenant host needs a domain: ${host}`);
  return `https://${normalized}`;
}

/** Inbox paths of a Hearth instance: the shared inbox and each actor's. */
export function isInboxPath(pathname: string): boolean {
  return pathname === '/inbox' || /^\/users\/[^/]+\/inbox$/.test(pathname);
}

export { isPublicPath } from './protocol.js';
