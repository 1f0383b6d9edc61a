import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestClient } from '../helpers/client.js';
import { postStatus } from '../helpers/fixtures.js';
import { form, picture } from '../media/helpers.js';

/** Shared steps of the reading tests (test/e2e/reading-*.test.ts). */

/** The patience of every wait: the machine is shared. */
export const WAIT = { timeout: 15_000 };

/** Waits until `check` holds (a condition on the API, polled). */
export async function until<T>(check: () => Promise<T | null | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error('until: the condition never held');
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** The article of the post whose text contains `text`, inside `scope`. */
export function article(scope: Page | Locator, text: string): Locator {
  return scope.getByRole('article').filter({ hasText: text }).first();
}

/** Posts `count` statuses numbered from `from` ("<prefix> 1", …), oldest first; returns them. */
export async function postMany(client: TestClient, prefix: string, count: number, from = 1): Promise<{ id: string }[]> {
  const out: { id: string }[] = [];
  for (let i = from; i < from + count; i++) out.push(await postStatus(client, { status: `${prefix} ${i}`, visibility: 'public' }));
  return out;
}

/** Uploads a picture with a description and waits until it is processed; returns the attachment id. */
export async function uploadPicture(client: TestClient, description: string): Promise<string> {
  const png = await picture(64, 48, 'png');
  const res = await client.post('/api/v2/media', undefined, { multipart: form({ file: { data: png, type: 'image/png', name: 'a.png' } }, { description }) });
  expect([200, 202]).toContain(res.status);
  const id = (res.body as { id: string }).id;
  await until(async () => (await client.get(`/api/v1/media/${id}`)).status === 200);
  return id;
}

/** The accessible names of the articles of a feed in the DOM that are at least partly in view, top first. */
export async function visibleArticles(feed: Locator): Promise<string[]> {
  const page = feed.page();
  const height = page.viewportSize()?.height ?? 900;
  const out: { y: number; text: string }[] = [];
  for (const a of await feed.getByRole('article').all()) {
    const box = await a.boundingBox();
    if (box && box.y + box.height > 0 && box.y < height) out.push({ y: box.y, text: (await a.textContent()) ?? '' });
  }
  return out.sort((a, b) => a.y - b.y).map((a) => a.text);
}
