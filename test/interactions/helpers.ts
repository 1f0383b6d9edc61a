import { expect } from 'vitest';
import type { TestClient } from '../helpers/client.js';

export { postStatus as post } from '../helpers/fixtures.js';

/** `follower` follows the account `targetId`. */
export async function follow(client: TestClient, targetId: string): Promise<void> {
  const res = await client.post(`/api/v1/accounts/${targetId}/follow`);
  expect(res.status, res.text).toBe(200);
}

/** Reads the Link header into { next, prev } URLs. */
export function links(header: string | null): { next?: string; prev?: string } {
  const out: { next?: string; prev?: string } = {};
  for (const part of (header ?? '').split(',')) {
    const m = /<([^>]+)>;\s*rel="(next|prev)"/.exec(part.trim());
    if (m?.[1] && m[2]) out[m[2] as 'next' | 'prev'] = m[1];
  }
  return out;
}

/** Waits until `check` returns a value other than undefined, polling every 50 ms, up to `ms`. */
export async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}
