import { expect } from 'vitest';
import type { TestUser } from '../helpers/instance.js';

/** Posts a status as `user` and returns it (fails the test unless 200). */
export async function post(user: TestUser, status: string, extra: Record<string, unknown> = {}): Promise<{ id: string; [k: string]: any }> {
  const res = await user.client.post('/api/v1/statuses', { status, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Every notification of `user` (v1, newest first, up to 80). */
export async function notificationsOf(user: TestUser, query = ''): Promise<any[]> {
  const res = await user.client.get(`/api/v1/notifications?limit=80${query ? `&${query}` : ''}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** The types of `user`'s notifications, newest first. */
export async function typesOf(user: TestUser, query = ''): Promise<string[]> {
  return (await notificationsOf(user, query)).map((n) => n.type);
}

/** Follows `target` as `user`, with options. */
export async function follow(user: TestUser, target: TestUser, options: Record<string, unknown> = {}): Promise<void> {
  const res = await user.client.post(`/api/v1/accounts/${target.accountId}/follow`, options);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Clears `user`'s notifications. */
export async function clear(user: TestUser): Promise<void> {
  expect((await user.client.post('/api/v1/notifications/clear')).status).toBe(200);
}

/** The `rel` link of a Link header, as a path on the instance. */
export function linkPath(link: string | null, rel: 'next' | 'prev'): string {
  const url = new RegExp(`<([^>]+)>; rel="${rel}"`).exec(link ?? '')?.[1];
  expect(url, `Link rel=${rel} in ${link}`).toBeTruthy();
  const parsed = new URL(url ?? '');
  return `${parsed.pathname}${parsed.search}`;
}
