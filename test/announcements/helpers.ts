import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { addCustomEmoji } from '../../api/core/emojis/manage.js';
import type { TestClient } from '../helpers/client.js';
import type { TestInstance, TestUser } from '../helpers/instance.js';
import { picture } from '../media/helpers.js';

/** The scopes of a staff member's token in these tests. */
export const STAFF_SCOPES = 'read write follow push admin:read admin:write';

/** Creates an announcement through the admin API (expects 200) and returns the staff entity. */
export async function announce(staff: TestClient, body: Record<string, unknown>): Promise<any> {
  const res = await staff.post('/api/v1/admin/announcements', body);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** The owner of an instance, with a token that carries the admin scopes. */
export function owner(inst: TestInstance, name = 'owner'): Promise<TestUser> {
  return inst.createUser(name, { role: 'owner', scopes: STAFF_SCOPES });
}

/** Adds a local custom emoji from a small generated PNG (through the same code as `hearth emoji add`). */
export async function addEmoji(inst: TestInstance, shortcode: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-announcement-emoji-'));
  try {
    const file = join(dir, `${shortcode}.png`);
    writeFileSync(file, await picture(32, 32, 'png'));
    await addCustomEmoji(inst.deps, { shortcode, file });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Counts the rows of a table (to show that a refused request wrote nothing). */
export function rows(inst: TestInstance, table: 'announcements' | 'announcement_reactions' | 'announcement_dismissals' | 'announcement_outbox'): number {
  return inst.deps.db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n ?? 0;
}

/** An ISO time `ms` milliseconds from now. */
export function fromNow(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}

/** Waits until `check` holds, trying every 20 ms, or fails after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 5000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
