import { expect } from 'vitest';
import { newId } from '../../api/util/ids.js';
import type { TestClient } from '../helpers/client.js';
import type { TestInstance, TestUser } from '../helpers/instance.js';

export { seedRemoteAccount } from '../helpers/fixtures.js';

/** Posts a status through POST /api/v1/statuses and returns the Status entity (expects 200). */
export async function post(user: TestUser, params: Record<string, unknown> | string): Promise<{ id: string; [k: string]: any }> {
  const res = await user.client.post('/api/v1/statuses', typeof params === 'string' ? { status: params } : params);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** `user` acts on the account `target` with POST /api/v1/accounts/:id/<action> and returns the Relationship. */
export async function act(user: TestUser, action: string, targetId: string, body?: Record<string, unknown>): Promise<any> {
  const res = await user.client.post(`/api/v1/accounts/${targetId}/${action}`, body);
  expect(res.status, `${action}: ${res.text}`).toBe(200);
  return res.body;
}

/** The viewer's Relationship to one account. */
export async function relationship(user: TestUser, targetId: string): Promise<any> {
  const res = await user.client.get(`/api/v1/accounts/relationships?id[]=${targetId}`);
  expect(res.status, res.text).toBe(200);
  return res.body[0];
}

/** Ids of the entities of a list answer (expects 200). */
export async function ids(client: TestClient, path: string): Promise<string[]> {
  const res = await client.get(path);
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return (res.body as { id: string }[]).map((x) => x.id);
}

/** The `rel` link of a Link header, as a path on the instance. */
export function linkPath(link: string | null, rel: 'next' | 'prev'): string {
  const url = new RegExp(`<([^>]+)>; rel="${rel}"`).exec(link ?? '')?.[1];
  expect(url, `Link rel=${rel} in ${link}`).toBeTruthy();
  const parsed = new URL(url ?? '');
  return `${parsed.pathname}${parsed.search}`;
}

/** Counts rows of a table matching a condition (for "nothing was written" checks). */
export function count(inst: TestInstance, table: string, where = '1', params: Record<string, string | number> = {}): number {
  return inst.deps.db.query<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get(params)?.n ?? 0;
}

/**
 * Seeds a remote public status as the inbox will store it and announces it with 'status.created'
 * (home feeds, search index), optionally replying to a status, mentioning local accounts, boosting
 * a status, or carrying an existing hashtag.
 */
export function seedRemoteStatus(
  inst: TestInstance,
  accountId: string,
  text: string,
  options: { inReplyTo?: { id: string; account: { id: string } }; mentions?: string[]; reblogOf?: string; tag?: string } = {},
): string {
  const id = newId();
  const at = Date.now();
  const db = inst.deps.db;
  db.query(
    `INSERT INTO statuses (id, account_id, local, uri, visibility, content, in_reply_to_id, in_reply_to_account_id, reblog_of_id,
       conversation_id, created_at, updated_at)
     VALUES (@id, @account_id, 0, @uri, 'public', @content, @in_reply_to_id, @in_reply_to_account_id, @reblog_of_id,
       (SELECT conversation_id FROM statuses WHERE id = @in_reply_to_id), @at, @at)`,
  ).run({
    id,
    account_id: accountId,
    uri: `https://remote.example/statuses/${id}`,
    content: options.reblogOf ? '' : `<p>${text}</p>`,
    in_reply_to_id: options.inReplyTo?.id ?? null,
    in_reply_to_account_id: options.inReplyTo?.account.id ?? null,
    reblog_of_id: options.reblogOf ?? null,
    at,
  });
  for (const mentioned of options.mentions ?? []) {
    db.query('INSERT INTO mentions (id, status_id, account_id) VALUES (@id, @status_id, @account_id)').run({ id: newId(), status_id: id, account_id: mentioned });
  }
  if (options.tag) {
    db.query(
      `INSERT INTO statuses_tags (status_id, tag_id)
       SELECT @status_id, id FROM tags WHERE name_normalized = lower(@name)`,
    ).run({ status_id: id, name: options.tag });
  }
  if (options.reblogOf) inst.deps.events.emit('reblog.created', { statusId: id, reblogOfId: options.reblogOf, accountId });
  inst.deps.events.emit('status.created', { statusId: id, accountId });
  return id;
}

/** Records an accepted follow between two accounts directly (a remote follower, as federation will). */
export function seedFollow(inst: TestInstance, accountId: string, targetAccountId: string): void {
  const at = Date.now();
  inst.deps.db
    .query('INSERT INTO follows (id, account_id, target_account_id, created_at, updated_at) VALUES (@id, @account_id, @target_account_id, @at, @at)')
    .run({ id: newId(), account_id: accountId, target_account_id: targetAccountId, at });
  inst.deps.events.emit('follow.created', { followId: '0', accountId, targetAccountId });
}

/** Silences (limits) an account, as a moderator will once the admin API exists. */
export function silence(inst: TestInstance, accountId: string): void {
  inst.deps.db.query('UPDATE accounts SET silenced_at = @at WHERE id = @id').run({ at: Date.now(), id: accountId });
}

/** Waits for a condition checked every 50 ms (scheduled tasks run every second), failing after `ms`. */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 4000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
