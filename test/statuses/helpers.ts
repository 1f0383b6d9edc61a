import { expect } from 'vitest';
import type { TestClient } from '../helpers/client.js';
import type { TestInstance } from '../helpers/instance.js';
import { newId } from '../../api/util/ids.js';

export { postStatus as post, seedRemoteAccount } from '../helpers/fixtures.js';

/** `client` follows the account `targetId` through the API. */
export async function follow(client: TestClient, targetId: string): Promise<void> {
  const res = await client.post(`/api/v1/accounts/${targetId}/follow`);
  expect(res.status, res.text).toBe(200);
}

/**
 * Seeds an uploaded, processed, unattached media row for an account. Uploads arrive with the media
 * issue; until then tests put the row where the upload would.
 */
export function seedMedia(
  inst: TestInstance,
  accountId: string,
  options: { type?: 'image' | 'video' | 'gifv' | 'audio'; description?: string | null; processing?: 'done' | 'processing' } = {},
): string {
  const id = newId();
  const at = Date.now();
  inst.deps.db
    .query(
      `INSERT INTO media_attachments (id, account_id, type, file_key, preview_key, file_content_type, description, meta, processing, created_at, updated_at)
       VALUES (@id, @account_id, @type, @file_key, @preview_key, 'image/png', @description, @meta, @processing, @at, @at)`,
    )
    .run({
      id,
      account_id: accountId,
      type: options.type ?? 'image',
      file_key: `media_attachments/${id}/original.png`,
      preview_key: `media_attachments/${id}/small.png`,
      description: options.description ?? null,
      meta: JSON.stringify({ original: { width: 10, height: 10, size: '10x10', aspect: 1 } }),
      processing: options.processing ?? 'done',
      at,
    });
  return id;
}

/** Counts rows of a table matching a condition (for "nothing was written" checks). */
export function count(inst: TestInstance, table: string, where = '1', params: Record<string, string | number> = {}): number {
  return (inst.deps.db.query<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get(params)?.n ?? 0);
}

/** Records an accepted follow of a remote account (what the remote Accept will create once federation lands). */
export function seedFollow(inst: TestInstance, accountId: string, targetAccountId: string): void {
  const at = Date.now();
  inst.deps.db
    .query('INSERT INTO follows (id, account_id, target_account_id, created_at, updated_at) VALUES (@id, @account_id, @target_account_id, @at, @at)')
    .run({ id: newId(), account_id: accountId, target_account_id: targetAccountId, at });
}
