import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';

describe('lists', () => {
  const env = useInstance(['alice', 'bob', 'carol']);
  const browser = useChromium();

  it('creates, renames, sets the replies policy and exclusive, manages members, and deletes a list', { timeout: 60_000 }, async () => {
    const { inst, users } = env();
    const alice = users.alice.client;
    await alice.post(`/api/v1/accounts/${users.bob.accountId}/follow`, {});
    await alice.post(`/api/v1/accounts/${users.carol.accountId}/follow`, {});
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/lists`);
    await page.getByText('You have no lists yet.').waitFor({ timeout: 15_000 });
    await page.getByLabel('New list title').fill('Friends');
    await page.getByRole('button', { name: 'Create list' }).click();
    await page.getByRole('heading', { name: 'Friends' }).waitFor({ timeout: 15_000 });
    const [list] = (await alice.get('/api/v1/lists')).body;
    expect(list.title).toBe('Friends');

    await page.getByLabel('Title of Friends').fill('Close friends');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('heading', { name: 'Close friends' }).waitFor({ timeout: 15_000 });
    await page.getByLabel('Show replies in Close friends').selectOption('none');
    await page.getByRole('checkbox', { name: 'Hide posts of Close friends’s members from Home' }).check();
    await expect.poll(async () => (await alice.get(`/api/v1/lists/${list.id}`)).body, { timeout: 15_000 }).toMatchObject({ title: 'Close friends', replies_policy: 'none', exclusive: true });

    await page.getByRole('button', { name: 'Members of Close friends' }).click();
    await page.getByText('Nobody is in this list yet.').waitFor({ timeout: 15_000 });
    await page.getByLabel('Find people you follow to add to Close friends').fill('bob');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: 'Add @bob to Close friends' }).click();
    await page.getByRole('list', { name: 'Members of Close friends' }).getByRole('link', { name: /@bob/ }).waitFor({ timeout: 15_000 });
    await page.getByLabel('Find people you follow to add to Close friends').fill('carol');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: 'Add @carol to Close friends' }).click();
    await expect
      .poll(async () => (await alice.get(`/api/v1/lists/${list.id}/accounts`)).body.map((a: { acct: string }) => a.acct).sort(), { timeout: 15_000 })
      .toEqual(['bob', 'carol']);
    await page.getByRole('button', { name: 'Remove @bob from Close friends' }).click();
    await expect.poll(async () => (await alice.get(`/api/v1/lists/${list.id}/accounts`)).body.map((a: { acct: string }) => a.acct), { timeout: 15_000 }).toEqual(['carol']);

    await page.getByRole('button', { name: 'Delete Close friends' }).click();
    await page.getByRole('dialog', { name: 'Delete the list?' }).getByRole('button', { name: 'Delete list' }).click();
    await page.getByText('You have no lists yet.').waitFor({ timeout: 15_000 });
    // The list leaves the screen at once (optimistically); the instance has it gone once the DELETE is answered.
    await expect.poll(async () => (await alice.get('/api/v1/lists')).body, { timeout: 15_000 }).toEqual([]);
    expectCleanPage(page);
    await context.close();
  });
});
