import { expect } from 'vitest';
import { newId } from '../../api/util/ids.js';
import type { TestClient } from '../helpers/client.js';
import type { TestInstance } from '../helpers/instance.js';

export { seedRemoteAccount } from '../helpers/fixtures.js';

/** Posts a status through the API and returns its id (expects 200). */
export async function post(client: TestClient, status: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await client.post('/api/v1/statuses', { status, ...extra });
  expect(res.status, res.text).toBe(200);
  return res.body.id as string;
}

/** Favourites a status through the API (expects 200). */
export async function favourite(client: TestClient, statusId: string): Promise<void> {
  const res = await client.post(`/api/v1/statuses/${statusId}/favourite`);
  expect(res.status, res.text).toBe(200);
}

/** Reblogs a status through the API (expects 200). */
export async function reblog(client: TestClient, statusId: string): Promise<void> {
  const res = await client.post(`/api/v1/statuses/${statusId}/reblog`);
  expect(res.status, res.text).toBe(200);
}

/** Replies to a status through the API (expects 200). */
export async function reply(client: TestClient, statusId: string): Promise<void> {
  await post(client, 'a reply', { in_reply_to_id: statusId });
}

/** Follows an account through the API (expects 200). */
export async function follow(client: TestClient, accountId: string): Promise<void> {
  const res = await client.post(`/api/v1/accounts/${accountId}/follow`);
  expect(res.status, res.text).toBe(200);
}

/** Unfollows an account through the API (expects 200). */
export async function unfollow(client: TestClient, accountId: string): Promise<void> {
  const res = await client.post(`/api/v1/accounts/${accountId}/unfollow`);
  expect(res.status, res.text).toBe(200);
}

/** Ids of GET /api/v1/suggestions (expects 200). */
export async function suggestedIds(client: TestClient, query = ''): Promise<string[]> {
  const res = await client.get(`/api/v1/suggestions${query}`);
  expect(res.status, res.text).toBe(200);
  return (res.body as { id: string }[]).map((a) => a.id);
}

/** GET /api/v2/suggestions as {id, source, sources} (expects 200). */
export async function suggestionsV2(client: TestClient, query = ''): Promise<{ id: string; source: string; sources: string[] }[]> {
  const res = await client.get(`/api/v2/suggestions${query}`);
  expect(res.status, res.text).toBe(200);
  return (res.body as { account: { id: string }; source: string; sources: string[] }[]).map((s) => ({
    id: s.account.id,
    source: s.source,
    sources: s.sources,
  }));
}

/** Seeds a public remote status (as the inbox will store it) and returns its id. */
export function seedRemoteStatus(inst: TestInstance, accountId: string, visibility = 'public'): string {
  const id = newId();
  const at = Date.now();
  inst.deps.db
    .query(
      `INSERT INTO statuses (id, account_id, local, uri, visibility, content, created_at, updated_at)
       VALUES (@id, @account_id, 0, @uri, @visibility, '<p>remote</p>', @at, @at)`,
    )
    .run({ id, account_id: accountId, uri: `https://remote.test/statuses/${id}`, visibility, at });
  return id;
}

/**
 * Puts a row in `blocks`, `mutes` or `account_domain_blocks` as the blocks work will (its endpoints
 * come later); returns a function that removes it again.
 */
export function seedRelation(
  inst: TestInstance,
  table: 'blocks' | 'mutes',
  accountId: string,
  targetAccountId: string,
  extra: { expires_at?: number | null } = {},
): () => void {
  const db = inst.deps.db;
  if (table === 'blocks') {
    db.query('INSERT INTO blocks (id, account_id, target_account_id, created_at) VALUES (@id, @account_id, @target_account_id, @at)').run({
      id: newId(),
      account_id: accountId,
      target_account_id: targetAccountId,
      at: Date.now(),
    });
  } else {
    db.query(
      'INSERT INTO mutes (id, account_id, target_account_id, expires_at, created_at) VALUES (@id, @account_id, @target_account_id, @expires_at, @at)',
    ).run({ id: newId(), account_id: accountId, target_account_id: targetAccountId, expires_at: extra.expires_at ?? null, at: Date.now() });
  }
  return () => {
    db.query(`DELETE FROM ${table} WHERE account_id = @account_id AND target_account_id = @target_account_id`).run({
      account_id: accountId,
      target_account_id: targetAccountId,
    });
  };
}

/** Puts a user-level domain block; returns a function that removes it. */
export function seedDomainBlock(inst: TestInstance, accountId: string, domain: string): () => void {
  const db = inst.deps.db;
  db.query('INSERT INTO account_domain_blocks (id, account_id, domain, created_at) VALUES (@id, @account_id, @domain, @at)').run({
    id: newId(),
    account_id: accountId,
    domain,
    at: Date.now(),
  });
  return () => db.query('DELETE FROM account_domain_blocks WHERE account_id = @account_id AND domain = @domain').run({ account_id: accountId, domain });
}

/** Number of rows in a table, optionally with a WHERE clause (to show that nothing was written). */
export function count(inst: TestInstance, table: string, where = '1'): number {
  return Number(inst.deps.db.query<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get()?.n ?? 0);
}

/** Sets columns of an account row directly (states the API cannot reach yet: suspended, moved…). */
export function setAccount(inst: TestInstance, accountId: string, changes: Record<string, string | number | null>): void {
  const keys = Object.keys(changes);
  inst.deps.db.query(`UPDATE accounts SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({ ...changes, id: accountId });
}

/** Waits a few milliseconds, so that two updates get distinct times. */
export function tick(ms = 5): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Calls a relationship action (`block`, `unblock`, `mute`, `unmute`) through the API (expects 200). */
export async function relate(client: TestClient, action: 'block' | 'unblock' | 'mute' | 'unmute', accountId: string): Promise<void> {
  const res = await client.post(`/api/v1/accounts/${accountId}/${action}`);
  expect(res.status, res.text).toBe(200);
}

/** Blocks (or unblocks) a domain through the API (expects 200). */
export async function domainBlock(client: TestClient, domain: string, remove = false): Promise<void> {
  const res = remove ? await client.delete('/api/v1/domain_blocks', { json: { domain } }) : await client.post('/api/v1/domain_blocks', { domain });
  expect(res.status, res.text).toBe(200);
}
