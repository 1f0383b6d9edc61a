import { isIP } from 'node:net';

/** The window of the per-address limit on client traffic: Mastodon's five minutes. */
export const CLIENT_RATE_WINDOW_MS = 5 * 60 * 1000;

/**
 * Per-address rate limits for client traffic carried by the relay (the Mastodon API for phones):
 * a token bucket per address, as Mastodon limits API calls per IP (300 per five minutes there; the
 * relay's default is a little more, since one address may be a family's phones). Answers carry
 * Mastodon's X-RateLimit headers.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly capacity = 600,
    private readonly windowMs = CLIENT_RATE_WINDOW_MS,
  ) {}

  /** Takes one token for `address`: whether the request may pass, and the headers to send. */
  take(address: string): { ok: boolean; headers: Record<string, string> } {
    const now = Date.now();
    const key = bucketKey(address);
    const rate = this.capacity / this.windowMs;
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
    bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.at) * rate);
    bucket.at = now;
    const ok = bucket.tokens >= 1;
    if (ok) bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    if (this.buckets.size > 100_000) this.prune(now);
    // Reset: when the bucket is full again (Mastodon's meaning: the whole limit is available).
    const reset = new Date(now + Math.ceil((this.capacity - bucket.tokens) / rate)).toISOString();
    return {
      ok,
      headers: { 'x-ratelimit-limit': String(this.capacity), 'x-ratelimit-remaining': String(Math.floor(bucket.tokens)), 'x-ratelimit-reset': reset },
    };
  }

  /** Forgets full buckets (addresses quiet for a whole window). */
  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) if (now - bucket.at > this.windowMs) this.buckets.delete(key);
  }
}

/**
 * The bucket of an address: an IPv4 address (IPv4-mapped IPv6 included) is its own bucket; an
 * IPv6 address shares one with its /64, the block a single home or phone is given, so that a
 * client cannot step around the limit by changing the low bits of its address.
 */
export function bucketKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (isIP(address) !== 6) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  // A dotted IPv4 ending stands for two groups.
  const width = (groups: string[]) => groups.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups = tail === undefined ? front : [...front, ...Array<string>(8 - width(front) - width(back)).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
