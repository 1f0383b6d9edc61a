/**
 * Per-address rate limits for client traffic carried by the relay (the Mastodon API for phones):
 * a token bucket per address, as Mastodon limits unauthenticated API calls per IP (300 per five
 * minutes there; a little more here, since one address may be a family's phones). Answers carry
 * Mastodon's X-RateLimit headers.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly capacity = 600,
    private readonly windowMs = 5 * 60 * 1000,
  ) {}

  /** Takes one token for `address`: whether the request may pass, and the headers to send. */
  take(address: string): { ok: boolean; headers: Record<string, string> } {
    const now = Date.now();
    const rate = this.capacity / this.windowMs;
    const bucket = this.buckets.get(address) ?? { tokens: this.capacity, at: now };
    bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.at) * rate);
    bucket.at = now;
    const ok = bucket.tokens >= 1;
    if (ok) bucket.tokens -= 1;
    this.buckets.set(address, bucket);
    if (this.buckets.size > 100_000) this.prune(now);
    const reset = new Date(now + Math.ceil((this.capacity - bucket.tokens) / rate)).toISOString();
    return {
      ok,
      headers: { 'x-ratelimit-limit': String(this.capacity), 'x-ratelimit-remaining': String(Math.floor(bucket.tokens)), 'x-ratelimit-reset': reset },
    };
  }

  /** Forgets full buckets (addresses quiet for a whole window). */
  private prune(now: number): void {
    for (const [address, bucket] of this.buckets) if (now - bucket.at > this.windowMs) this.buckets.delete(address);
  }
}
