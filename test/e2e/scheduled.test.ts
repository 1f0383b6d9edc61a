import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';

/** A Date as a datetime-local input value (local time, to the minute). */
function localValue(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Asks until `check` gives something (the app's requests are asynchronous). */
async function eventually<T>(check: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('eventually: timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Scheduling a post from the composer, and the /scheduled screen: list, new time, cancel. */
describe('scheduled posts', () => {
  const env = useInstance(['alice']);
  const browser = useChromium();

  it('a post scheduled in the composer is listed, moved to another time and cancelled', async () => {
    const { inst, users } = env();
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/compose`);
    await page.getByLabel('Post text').fill('Good morning, future');
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    const at = new Date(Date.now() + 2 * 3600_000);
    at.setSeconds(0, 0);
    await page.getByLabel('Publish at').fill(localValue(at));
    await page.getByRole('button', { name: 'Schedule post' }).click();

    await page.getByRole('heading', { name: 'Scheduled posts', level: 1 }).waitFor({ timeout: 15_000 });
    const item = page.getByRole('article', { name: 'Scheduled post: Good morning, future' });
    await item.waitFor();
    const listed = (await users.alice.client.get('/api/v1/scheduled_statuses')).body;
    expect(listed).toHaveLength(1);
    expect(listed[0].params.text).toBe('Good morning, future');
    expect(Date.parse(listed[0].scheduled_at)).toBe(at.getTime());
    // Nothing is published yet.
    expect((await users.alice.client.get(`/api/v1/accounts/${users.alice.accountId}/statuses`)).body).toEqual([]);

    const later = new Date(at.getTime() + 26 * 3600_000);
    await item.getByRole('button', { name: 'Change time of: Good morning, future' }).click();
    await item.getByLabel('New time').fill(localValue(later));
    await item.getByRole('button', { name: 'Save time' }).click();
    await eventually(async () => {
      const [s] = (await users.alice.client.get('/api/v1/scheduled_statuses')).body;
      return Date.parse(s?.scheduled_at ?? '') === later.getTime() ? true : undefined;
    });
    expect(await item.locator('time').first().getAttribute('datetime')).toBe(later.toISOString());

    await item.getByRole('button', { name: 'Cancel post: Good morning, future' }).click();
    await item.waitFor({ state: 'detached' });
    await eventually(async () => ((await users.alice.client.get('/api/v1/scheduled_statuses')).body.length === 0 ? true : undefined));
    await page.getByText('No scheduled posts.').waitFor();
    expectCleanPage(page);
    await context.close();
  }, 60_000);
});
