import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { hostName } from '../../util/hosts.js';

/**
 * The address a request is counted under by the rate limits, or null for a request from an app
 * on this machine, which no limit applies to (Mastodon's "allow from localhost").
 *
 * - From another machine (a phone on the network, a client of a public listener): its address.
 * - From loopback with `X-Forwarded-For`: a proxy on this machine (a TLS proxy, or the relay's
 *   edge, whose headers the relay connector passes on): the nearest address it names that is not
 *   loopback. A proxy that names only loopback addresses speaks for an app on this machine.
 * - From loopback without one: an app on this machine when it asks for a loopback name
 *   (`127.0.0.1`, `localhost`, `*.localhost`); a request that names another host (the public
 *   origin) came through the relay's tunnel or a proxy that did not say for whom, and is counted
 *   under the loopback address, all such clients together.
 *
 * IPv6 addresses count by their /64 (one home or phone), IPv4-mapped ones as IPv4.
 */
export function throttledAddress(req: IncomingMessage): string | null {
  const peer = req.socket.remoteAddress ?? '';
  if (!isLoopback(peer)) return addressBucket(peer);
  const forwarded = req.headers['x-forwarded-for'];
  if (forwarded) {
    const named = nearestForwarded(Array.isArray(forwarded) ? forwarded.join(',') : forwarded);
    if (named !== undefined) return named === null ? null : addressBucket(named);
  }
  const host = req.headers.host;
  if (host === undefined || isLoopbackHost(hostName(host))) return null;
  return addressBucket(peer);
}

/**
 * The address a request came from, as the rate limits judge it but whole (not bucketed): the
 * peer's address, or for a request through a proxy on this machine the nearest non-loopback
 * address its `X-Forwarded-For` names; the loopback peer's own address otherwise. IP blocks and
 * the sign-up address use it.
 */
export function requestAddress(req: IncomingMessage): string {
  const peer = req.socket.remoteAddress ?? '';
  if (!isLoopback(peer)) return peer;
  const forwarded = req.headers['x-forwarded-for'];
  const named = forwarded ? nearestForwarded(Array.isArray(forwarded) ? forwarded.join(',') : forwarded) : undefined;
  return typeof named === 'string' ? named : peer;
}

/**
 * The nearest address of an `X-Forwarded-For` list that is not loopback; null when every address
 * in it is loopback; undefined when it names no address at all (garbage is ignored).
 */
function nearestForwarded(list: string): string | null | undefined {
  let sawLoopback = false;
  const parts = list.split(',');
  for (let i = parts.length - 1; i >= 0; i--) {
    const address = plainAddress(parts[i] ?? '');
    if (address === null) continue;
    if (!isLoopback(address)) return address;
    sawLoopback = true;
  }
  return sawLoopback ? null : undefined;
}

/** An address as proxies write it (`1.2.3.4`, `1.2.3.4:5678`, `[::1]:80`, `::1`), or null. */
function plainAddress(value: string): string | null {
  let v = value.trim();
  if (v.startsWith('[')) v = v.slice(1, v.indexOf(']') === -1 ? undefined : v.indexOf(']'));
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(v)) v = v.slice(0, v.lastIndexOf(':'));
  return isIP(v) === 0 ? null : v;
}

/** Whether a Host name is this machine's by definition: a loopback address or `localhost`. */
function isLoopbackHost(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return isLoopback(name.startsWith('[') ? name.slice(1, -1) : name);
}

/** The bucket an address counts in: IPv4 as is, IPv6 by its /64. */
export function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (isIP(address) !== 6) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  // A dotted IPv4 ending stands for two groups.
  const width = (groups: string[]) => groups.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups = tail === undefined ? front : [...front, ...Array<string>(Math.max(0, 8 - width(front) - width(back))).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** Whether an address is on loopback: 127.0.0.0/8 or ::1, IPv4-mapped too. */
function isLoopback(address: string): boolean {
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || (isIP(v4) === 4 && v4.startsWith('127.'));
}
