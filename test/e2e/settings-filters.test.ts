import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';

describe('settings: filters, mutes, blocks, blocked domains', () => {
  const env = useInstance(['alice', 'bob', 'carol']);
  const browser = useChromium();

  it('creates a filter with keywords, contexts, expiry and action, edits it, and puts it back with a Retry when deleting fails', { timeout: 60_000 }, async () => {
    const { inst, users } = env();
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/settings/filters`);
    await page.getByRole('button', { name: 'New filter' }).click();
    const dialog = page.getByRole('dialog', { name: 'New filter' });
    await dialog.getByLabel('Title').fill('Spoilers');
    await dialog.getByLabel('Keyword 1').fill('finale');
    await dialog.getByLabel('Keyword 2').fill('ending');
    await dialog.getByRole('checkbox', { name: 'Whole word 2' }).uncheck();
    await dialog.getByRole('checkbox', { name: 'Notifications' }).uncheck();
    await dialog.getByRole('radio', { name: 'Hide completely' }).check();
    await dialog.getByLabel('Ends after').selectOption('86400');
    await dialog.getByRole('button', { name: 'Save filter' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 15_000 });
    await page.getByRole('list', { name: 'Filters' }).getByText('Spoilers').waitFor();

    const [filter] = (await users.alice.client.get('/api/v2/filters')).body;
    expect(filter.title).toBe('Spoilers');
    expect(filter.filter_action).toBe('hide');
    expect([...filter.context].sort()).toEqual(['home', 'public', 'thread']);
    expect(filter.keywords.map((k: { keyword: string; whole_word: boolean }) => [k.keyword, k.whole_word])).toEqual([
      ['finale', true],
      ['ending', false],
    ]);
    const left = Date.parse(filter.expires_at) - Date.now();
    expect(left).toBeGreaterThan(86_000_000);
    expect(left).toBeLessThan(86_500_000);

    await page.getByRole('button', { name: 'Edit filter Spoilers' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit filter' });
    await edit.getByLabel('Keyword 2').fill('');
    await edit.getByRole('radio', { name: 'Hide behind a warning' }).check();
    await edit.getByRole('button', { name: 'Save filter' }).click();
    await edit.waitFor({ state: 'detached', timeout: 15_000 });
    const edited = (await users.alice.client.get(`/api/v2/filters/${filter.id}`)).body;
    expect(edited.filter_action).toBe('warn');
    expect(edited.keywords.map((k: { keyword: string }) => k.keyword)).toEqual(['finale']);

    // Deleted elsewhere meanwhile: the row comes back with the reason and a Retry.
    expect((await users.alice.client.delete(`/api/v2/filters/${filter.id}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Delete filter Spoilers' }).click();
    const failed = page.getByRole('alert').filter({ hasText: 'The filter “Spoilers” was not deleted: This could not be found.' });
    await failed.waitFor({ timeout: 15_000 });
    await failed.getByRole('button', { name: 'Retry' }).waitFor();
    await page.getByRole('button', { name: 'Delete filter Spoilers' }).waitFor();
    expect((await users.alice.client.get('/api/v2/filters')).body).toEqual([]);
    expectCleanPage(page);
    await context.close();
  });

  it('unmutes, unblocks and unblocks a domain', { timeout: 60_000 }, async () => {
    const { inst, users } = env();
    const alice = users.alice.client;
    await alice.post(`/api/v1/accounts/${users.bob.accountId}/mute`, {});
    await alice.post(`/api/v1/accounts/${users.carol.accountId}/block`, {});
    expect((await alice.post('/api/v1/domain_blocks', { domain: 'spam.example' })).status).toBe(200);
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);

    await page.goto(`${inst.url}/settings/mutes`);
    await page.getByRole('button', { name: 'Unmute @bob' }).click();
    await page.getByText('Nobody here.').waitFor({ timeout: 15_000 });
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Blocked accounts' }).click();
    await page.getByRole('button', { name: 'Unblock @carol' }).click();
    await page.getByText('Nobody here.').waitFor({ timeout: 15_000 });
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Blocked domains' }).click();
    await page.getByRole('button', { name: 'Unblock spam.example' }).click();
    await page.getByText('No domains are blocked.').waitFor({ timeout: 15_000 });

    // The rows leave the screen at once (optimistically); the instance has them gone once each request is answered.
    const rel = async () => (await alice.get(`/api/v1/accounts/relationships?id[]=${users.bob.accountId}&id[]=${users.carol.accountId}`)).body.map((r: { muting: boolean; blocking: boolean }) => [r.muting, r.blocking]);
    await expect.poll(rel, { timeout: 15_000 }).toEqual([
      [false, false],
      [false, false],
    ]);
    await expect.poll(async () => (await alice.get('/api/v1/domain_blocks')).body, { timeout: 15_000 }).toEqual([]);
    expectCleanPage(page);
    await context.close();
  });
});
