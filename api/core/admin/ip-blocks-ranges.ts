import { isIP } from 'node:net';

/**
 * Address ranges for IP blocks: parsing `ip` or `ip/prefix` (IPv4 and IPv6) into a network masked
 * to its prefix, its CIDR text as Mastodon shows it (`10.0.0.0/8`, `2001:db8::/32`), and matching
 * an address against it. IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`) match as IPv4.
 */

/** A network: its family, masked address as a number, and prefix length. */
export interface IpRange {
  family: 4 | 6;
  network: bigint;
  prefix: number;
}

function v4ToBigInt(address: string): bigint {
  return address.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

function v6ToBigInt(address: string): bigint {
  let text = address.toLowerCase();
  // A dotted IPv4 ending stands for the last two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const v4 = v4ToBigInt(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  const groups = tail === undefined ? front : [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** An address as a family and number, IPv4-mapped IPv6 read as IPv4; null when it is none. */
export function parseAddress(address: string): { family: 4 | 6; value: bigint } | null {
  const plain = address.trim().replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const family = isIP(plain);
  if (family === 4) return { family: 4, value: v4ToBigInt(plain) };
  if (family !== 6) return null;
  const value = v6ToBigInt(plain);
  if (value >> 32n === 0xffffn) return { family: 4, value: value & 0xffffffffn };
  return { family: 6, value };
}

/** The network `ip` or `ip/prefix` names, masked to its prefix; null when it is not one. */
export function parseIpRange(text: string): IpRange | null {
  const m = /^([^/\s]+)(?:\/(\d{1,3}))?$/.exec(text.trim());
  if (!m?.[1]) return null;
  const plain = m[1];
  const family = isIP(plain);
  if (family !== 4 && family !== 6) return null;
  const bits = family === 4 ? 32 : 128;
  const prefix = m[2] === undefined ? bits : Number(m[2]);
  if (prefix > bits) return null;
  const value = family === 4 ? v4ToBigInt(plain) : v6ToBigInt(plain);
  const mask = ((1n << BigInt(prefix)) - 1n) << BigInt(bits - prefix);
  return { family, network: value & mask, prefix };
}

function v6Text(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt((7 - i) * 16)) & 0xffffn));
  // The longest run of two or more zero groups becomes `::` (RFC 5952).
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length && j - i > 1) best = { start: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start === -1) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

/** The CIDR text of a network, as Mastodon shows it. */
export function ipRangeText(range: IpRange): string {
  const address =
    range.family === 4 ? [24n, 16n, 8n, 0n].map((shift) => String((range.network >> shift) & 0xffn)).join('.') : v6Text(range.network);
  return `${address}/${range.prefix}`;
}

/** Whether an address (as `parseAddress` reads it) lies in a network. */
export function rangeContains(range: IpRange, address: { family: 4 | 6; value: bigint }): boolean {
  if (range.family !== address.family) return false;
  const bits = range.family === 4 ? 32 : 128;
  return address.value >> BigInt(bits - range.prefix) === range.network >> BigInt(bits - range.prefix);
}
