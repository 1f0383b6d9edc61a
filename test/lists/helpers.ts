import { expect } from 'vitest';
import { newId } from '../../api/util/ids.js';
import type { TestClient } from '../helpers/client.js';
import type { TestInstance } from '../helpers/instance.js';

/** `client` follows `targetId` through the API (expects 200). */
export async function follow(client: TestClient, targetId: string): Promise<void> {
  const res = await client.post(`/api/v1/accounts/${targetId}/follow`);
  expect(res.status, res.text).toBe(200);
}

/** Creates a list through the API and returns its id (expects 200). */
export async function createList(client: TestClient, title: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await client.post('/api/v1/lists', { title, ...extra });
  expect(res.status, res.text).toBe(200);
  return res.body.id as string;
}

/** Account ids of a list's members as GET /api/v1/lists/:id/accounts answers them (expects 200). */
export async function memberIds(client: TestClient, listId: string, query = ''): Promise<string[]> {
  const res = await client.get(`/api/v1/lists/${listId}/accounts${query}`);
  expect(res.status, res.text).toBe(200);
  return (res.body as { id: string }[]).map((a) => a.id);
}

/** Number of rows in a table (to show that a refused request wrote nothing). */
export function count(inst: TestInstance, table: string): number {
  return Number(inst.deps.db.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? 0);
}

/**
 * Seeds a remote account that `followerId` follows (federation will create both; the test puts
 * the rows directly, as the remote server cannot run here). Returns the account id.
 */
export function seedFollowedRemote(inst: TestInstance, followerId: string, username: string): string {
  const id = newId();
  const at = Date.now();
  const db = inst.deps.db;
  db.query(
    `INSERT INTO accounts (id, username, domain, uri, url, created_at, updated_at)
     VALUES (@id, @username, 'remote.example', @uri, @url, @at, @at)`,
  ).run({ id, username, uri: `https://remote.example/users/${username}`, url: `https://remote.example/@${username}`, at });
  db.query(
    `INSERT INTO follows (id, account_id, target_account_id, created_at, updated_at)
     VALUES (@id, @account_id, @target_account_id, @at, @at)`,
  ).run({ id: newId(), account_id: followerId, target_account_id: id, at });
  return id;
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
