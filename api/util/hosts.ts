/**
 * The Host allow-list against DNS rebinding, as pure functions: a web page on some other name that
 * resolves to 127.0.0.1 must not reach the local API. Used where requests bypass Express
 * (WebSocket upgrades); the HTTP middleware applies the same rule. Also how a request's own origin
 * is read (its Host, and what a TLS proxy on loopback says it received).
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { TLSSocket } from 'node:tls';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];

/** The host name part of a Host header value, lower case, without the port (IPv6 keeps its brackets). */
export function hostName(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1);
  const colon = value.lastIndexOf(':');
  return colon === -1 ? value : value.slice(0, colon);
}

/** Whether a bind address means every interface of the machine. */
export function isWildcardAddress(address: string): boolean {
  return address === '0.0.0.0' || address === '::' || address === '[::]';
}

/**
 * The machine's own addresses on its networks (loopback and link-local IPv6 left out): what a
 * phone or another computer on the same network reaches it at.
 */
export function networkAddresses(): string[] {
  const out: string[] = [];
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (entry.internal || (entry.family === 'IPv6' && entry.address.toLowerCase().startsWith('fe80:'))) continue;
      out.push(entry.address);
    }
  }
  return out;
}

/** A host name as it appears in a Host header's name part: IPv6 addresses in brackets. */
function asHostName(name: string): string {
  return isIP(name) === 6 ? `[${name.toLowerCase()}]` : name.toLowerCase();
}

/**
 * The names a configuration accepts beyond loopback: configured names, the bind address's host
 * (every address of the machine when it binds them all), the public origin's host, and the HTTPS
 * listener's names when it is on.
 */
export function allowedHostNames(config: { allowedHosts: readonly string[]; bind: string; origin: string | null; httpsPort?: number | null; httpsNames?: readonly string[] }): string[] {
  const names = [...config.allowedHosts, hostName(config.bind)];
  if (isWildcardAddress(config.bind)) names.push(...networkAddresses().map(asHostName));
  if (config.origin) names.push(new URL(config.origin).hostname.toLowerCase());
  if (config.httpsPort !== undefined && config.httpsPort !== null) names.push(...(config.httpsNames ?? []).map(asHostName));
  return [...new Set(names)];
}

/**
 * True when a request with this Host header may be served: loopback names (and *.localhost) and the
 * names in `allowed` pass; `*` in `allowed` accepts any host, even a missing one.
 */
export function isHostAllowed(header: string | undefined, allowed: readonly string[]): boolean {
  if (allowed.includes('*')) return true;
  const name = header ? hostName(header) : '';
  if (!name) return false;
  return LOOPBACK_NAMES.includes(name) || name.endsWith('.localhost') || allowed.includes(name);
}

/** Whether an address (a socket's remote address) is on loopback: 127.0.0.0/8 or ::1, IPv4-mapped too. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  // The addresses nearly every local request comes from, without parsing.
  if (address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1') return true;
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || (isIP(v4) === 4 && v4.startsWith('127.'));
}

/** The first value of a header that proxies may have sent as a list (`https, http`). */
function firstValue(value: string | string[] | undefined): string | undefined {
  const joined = Array.isArray(value) ? value[0] : value;
  if (joined === undefined) return undefined;
  const comma = joined.indexOf(',');
  const first = (comma === -1 ? joined : joined.slice(0, comma)).trim();
  return first ? first : undefined;
}

/**
 * The host a TLS proxy says the client asked for (`X-Forwarded-Host`). Only a proxy on loopback
 * is believed: anyone else could name any host.
 */
export function forwardedHost(req: IncomingMessage): string | undefined {
  return isLoopbackAddress(req.socket.remoteAddress) ? firstValue(req.headers['x-forwarded-host']) : undefined;
}

const MAX_REMEMBERED_ORIGINS = 256;
const origins = new Map<string, string | null>();

/**
 * The origin (`https://host[:port]`) a request was made to, as its client sees it: https on the
 * HTTPS listener; otherwise the scheme a proxy on loopback reports in `X-Forwarded-Proto`, else
 * http. The host is the proxy's `X-Forwarded-Host` (loopback only), else the Host header. Null
 * when there is no usable host.
 */
export function requestOrigin(req: IncomingMessage): string | null {
  const encrypted = (req.socket as Partial<TLSSocket>).encrypted === true;
  const trusted = isLoopbackAddress(req.socket.remoteAddress);
  let scheme = encrypted ? 'https' : 'http';
  if (!encrypted && trusted) {
    const proto = firstValue(req.headers['x-forwarded-proto'])?.toLowerCase();
    if (proto === 'https' || proto === 'http') scheme = proto;
  }
  const host = (trusted ? firstValue(req.headers['x-forwarded-host']) : undefined) ?? req.headers.host;
  if (!host) return null;
  const key = `${scheme}://${host}`;
  const known = origins.get(key);
  if (known !== undefined) return known;
  let origin: string | null = null;
  try {
    const url = new URL(key);
    // A Host with a path, a query or credentials in it is not a host.
    if (url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password && key.length <= 300) origin = url.origin;
  } catch {
    origin = null;
  }
  // Requests come again and again with the same few names: parse each once.
  if (origins.size >= MAX_REMEMBERED_ORIGINS) origins.clear();
  origins.set(key, origin);
  return origin;
}

/**
 * The base that URLs published in answer to a request are built from: null when the instance has
 * a public origin (its identity, whatever address the request came to), else the request's own
 * origin (null when it has none usable: then the listen address is used).
 */
export function clientBase(config: { origin: string | null }, req: IncomingMessage): string | null {
  return config.origin ? null : requestOrigin(req);
}

/**
 * Whether a request's names are allowed: its Host, and for a local-only instance (whose URLs
 * follow it) the `X-Forwarded-Host` a proxy on loopback sent.
 */
export function isRequestHostAllowed(req: IncomingMessage, allowed: readonly string[], followsRequest: boolean): boolean {
  if (!isHostAllowed(req.headers.host, allowed)) return false;
  const forwarded = followsRequest ? forwardedHost(req) : undefined;
  return forwarded === undefined || isHostAllowed(forwarded, allowed);
}
