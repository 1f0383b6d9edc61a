import { expect } from 'vitest';
import { newId } from '../../api/util/ids.js';
import type { TestClient } from '../helpers/client.js';
import type { TestInstance } from '../helpers/instance.js';

export { postStatus as post, seedRemoteAccount } from '../helpers/fixtures.js';

/** `client` follows `targetId` (optionally with options) through the API. */
export async function follow(client: TestClient, targetId: string, options: Record<string, unknown> = {}): Promise<void> {
  const res = await client.post(`/api/v1/accounts/${targetId}/follow`, options);
  expect(res.status, res.text).toBe(200);
}

/** `client` unfollows `targetId` through the API. */
export async function unfollow(client: TestClient, targetId: string): Promise<void> {
  const res = await client.post(`/api/v1/accounts/${targetId}/unfollow`);
  expect(res.status, res.text).toBe(200);
}

/** Ids of a timeline answer (expects `status`, 200 by default). */
export async function ids(client: TestClient, path: string, status = 200): Promise<string[]> {
  const res = await client.get(path);
  expect(res.status, res.text).toBe(status);
  return (res.body as { id: string }[]).map((s) => s.id);
}

/**
 * Seeds a remote status row as federation will store it, and announces it with 'status.created'
 * as the inbox will, so that home feeds and the index see it.
 */
export function seedRemoteStatus(
  inst: TestInstance,
  accountId: string,
  options: { content?: string; visibility?: 'public' | 'unlisted' | 'private' | 'direct'; tagIds?: string[] } = {},
): string {
  const id = newId();
  const at = Date.now();
  inst.deps.db
    .query(
      `INSERT INTO statuses (id, account_id, local, uri, url, visibility, content, created_at, updated_at)
       VALUES (@id, @account_id, 0, @uri, @url, @visibility, @content, @at, @at)`,
    )
    .run({
      id,
      account_id: accountId,
      uri: `https://remote.example/statuses/${id}`,
      url: `https://remote.example/@x/${id}`,
      visibility: options.visibility ?? 'public',
      content: options.content ?? '<p>remote words</p>',
      at,
    });
  for (const tagId of options.tagIds ?? []) {
    inst.deps.db.query('INSERT INTO statuses_tags (status_id, tag_id) VALUES (@status_id, @tag_id)').run({ status_id: id, tag_id: tagId });
  }
  inst.deps.events.emit('status.created', { statusId: id, accountId });
  return id;
}

/** The id of a tag by name (it must exist). */
export function tagId(inst: TestInstance, name: string): string {
  const row = inst.deps.db.query<{ id: string }>('SELECT id FROM tags WHERE name_normalized = lower(@name)').get({ name });
  if (!row) throw new Error(`no tag ${name}`);
  return row.id;
}

/** Seeds an uploaded, processed, unattached media row for an account (uploads come with the media issue). */
export function seedMedia(inst: TestInstance, accountId: string, type: 'image' | 'video' | 'audio' = 'image', description: string | null = null): string {
  const id = newId();
  const at = Date.now();
  inst.deps.db
    .query(
      `INSERT INTO media_attachments (id, account_id, type, file_key, preview_key, file_content_type, description, meta, created_at, updated_at)
       VALUES (@id, @account_id, @type, @file_key, @preview_key, 'image/png', @description, @meta, @at, @at)`,
    )
    .run({
      id,
      account_id: accountId,
      type,
      file_key: `media_attachments/${id}/original.png`,
      preview_key: `media_attachments/${id}/small.png`,
      description,
      meta: JSON.stringify({ original: { width: 10, height: 10, size: '10x10', aspect: 1 } }),
      at,
    });
  return id;
}

/** Parses a Link header into its rel → URL map. */
export function links(header: string | null): Record<string, URL> {
  const out: Record<string, URL> = {};
  for (const part of (header ?? '').split(',')) {
    const m = /<([^>]+)>;\s*rel="([^"]+)"/.exec(part.trim());
    if (m?.[1] && m[2]) out[m[2]] = new URL(m[1]);
  }
  return out;
}

/** Polls `check` until it returns true (or fails after `ms`). */
export async function eventually(check: () => Promise<boolean>, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition not reached in time');
}
