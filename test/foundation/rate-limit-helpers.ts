import { request as httpRequest } from 'node:http';
import { expect } from 'vitest';
import { now } from '../../api/util/clock.js';
import type { TestResponse } from '../helpers/client.js';

/**
 * The scale the rate limit tests run with: Mastodon's limits times 0.01 (3 API requests per 5
 * minutes per token or address, 15 per user, 1 upload, 3 posts per 3 hours, 4 follows and 4
 * reports a day, 1 sign-up, 1 app registration, 1 sign-in attempt…), so that each is used up in a
 * few requests.
 */
export const SCALE = 0.01;

export const MINUTE = 60_000;

/**
 * Names the client in X-Forwarded-For, as a proxy on this machine (or the relay's edge) does;
 * requests from apps on this machine are not limited.
 */
export const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });

/** The X-RateLimit headers of a response. */
export function limitHeaders(res: TestResponse) {
  return {
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
  };
}

/** Checks a reset time: Mastodon's format, at the end of the current window of `periodMs`. */
export function expectReset(reset: string | null, periodMs: number): void {
  expect(reset).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  const at = Date.parse(reset ?? '');
  expect(at % periodMs).toBe(0);
  expect(at).toBeGreaterThan(now());
  expect(at).toBeLessThanOrEqual(now() + periodMs);
}

/** Checks a refusal: 429, Mastodon's JSON error, and the headers of the limit used up. */
export function expectRefused(res: TestResponse, limit: number, periodMs: number): void {
  expect(res.status, res.text).toBe(429);
  expect(res.body).toEqual({ error: 'Too many requests' });
  const h = limitHeaders(res);
  expect(h.limit).toBe(String(limit));
  expect(h.remaining).toBe('0');
  expectReset(h.reset, periodMs);
}

/** A GET with a Host header of our choosing (fetch will not send one). */
export function getWithHost(url: string, path: string, host: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: target.hostname, port: target.port, path, headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}
