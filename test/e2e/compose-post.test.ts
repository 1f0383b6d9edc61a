import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../api/cli.js';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';

/** The composer at /compose: options, polls, the character limit, the instance's refusals, drafts and suggestions. */
describe('writing a post', () => {
  const env = useInstance(['alice', 'bob']);
  const browser = useChromium();
  const scratch = mkdtempSync(join(tmpdir(), 'hearth-compose-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  async function latest(): Promise<any> {
    const { users } = env();
    const res = await users.alice.client.get(`/api/v1/accounts/${users.alice.accountId}/statuses?limit=1`);
    return res.body[0];
  }

  it('posts with a content warning, visibility, language and a poll; the post shows at once on home', async () => {
    const { inst, users } = env();
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    // Home is loaded (and cached) first; the composer is opened inside the app.
    await page.goto(`${inst.url}/`);
    await page.getByText('Your home timeline is empty').waitFor();
    await page.getByRole('link', { name: 'New post' }).click();
    await page.getByRole('heading', { name: 'New post', level: 1 }).waitFor();
    await page.getByLabel('Post text').fill('Which fruit is best?');
    await page.getByRole('button', { name: 'Content warning' }).click();
    expect(await page.getByRole('button', { name: 'Content warning' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByLabel('Content warning').fill('food talk');
    await page.getByLabel('Visibility').selectOption({ label: 'Followers only' });
    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('button', { name: 'Poll' }).click();
    await page.getByRole('textbox', { name: 'Option 1' }).fill('Apple');
    await page.getByRole('textbox', { name: 'Option 2' }).fill('Pear');
    await page.getByRole('button', { name: 'Add option' }).click();
    await page.getByRole('textbox', { name: 'Option 3' }).fill('Plum');
    await page.getByLabel('Allow multiple choices').check();
    await page.getByLabel('Hide vote counts until the poll ends').check();
    await page.getByLabel('Poll duration').selectOption({ label: '1 hour' });
    await page.getByRole('button', { name: 'Post', exact: true }).click();

    // Back home, the new post is there at once: the cached timeline got it (it is not stale yet).
    const feed = page.getByRole('feed', { name: 'Home' });
    await feed.getByRole('article').filter({ hasText: 'food talk' }).waitFor({ timeout: 15_000 });
    const status = await latest();
    expect(status).toMatchObject({ spoiler_text: 'food talk', visibility: 'private', language: 'de', content: '<p>Which fruit is best?</p>' });
    expect(status.poll.options.map((o: { title: string }) => o.title)).toEqual(['Apple', 'Pear', 'Plum']);
    expect(status.poll.multiple).toBe(true);
    const lasts = Date.parse(status.poll.expires_at) - Date.parse(status.created_at);
    expect(Math.abs(lasts - 3600_000)).toBeLessThan(60_000);
    expectCleanPage(page);
    await context.close();
  }, 60_000);

  it('counts links as 23 characters, blocks posting above the limit, and shows the instance’s 422 at the form', async () => {
    const { inst, users } = env();
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    // The person's posting preferences are the form's defaults.
    const prefs = await users.alice.client.patch('/api/v1/accounts/update_credentials', undefined, { form: { 'source[language]': 'fr', 'source[privacy]': 'unlisted' } });
    expect(prefs.status).toBe(200);
    await page.goto(`${inst.url}/compose`);
    const text = page.getByLabel('Post text');
    const post = page.getByRole('button', { name: 'Post', exact: true });
    await text.waitFor();
    expect(await page.getByLabel('Language').inputValue()).toBe('fr');
    expect(await page.getByLabel('Visibility').inputValue()).toBe('unlisted');
    await users.alice.client.patch('/api/v1/accounts/update_credentials', undefined, { form: { 'source[language]': 'en', 'source[privacy]': 'public' } });
    // A 300-character link counts 23, a remote mention its local part: 23 + 1 + 4 + 1 + 460 = 489.
    await text.fill(`https://example.com/${'a'.repeat(280)} @bob@remote.example ${'y'.repeat(460)}`);
    await page.getByText('11 characters left').waitFor();
    expect(await post.isDisabled()).toBe(false);
    await text.fill('x'.repeat(501));
    await page.getByText('1 characters over the limit').waitFor();
    expect(await post.isDisabled()).toBe(true);
    await text.press('Control+Enter');
    await text.fill('x'.repeat(500));
    await page.getByText('0 characters left').waitFor();
    expect(await post.isDisabled()).toBe(false);
    // Nothing was posted while over the limit.
    expect((await users.alice.client.get(`/api/v1/accounts/${users.alice.accountId}/statuses`)).body).toHaveLength(1);

    // Scheduling two minutes ahead: the instance wants five; its message shows at the form.
    const soon = new Date(Date.now() + 2 * 60_000);
    const refused = await users.alice.client.post('/api/v1/statuses', { status: 'probe', scheduled_at: soon.toISOString() });
    expect(refused.status).toBe(422);
    await text.fill('too soon');
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    const pad = (n: number) => String(n).padStart(2, '0');
    await page.getByLabel('Publish at').fill(`${soon.getFullYear()}-${pad(soon.getMonth() + 1)}-${pad(soon.getDate())}T${pad(soon.getHours())}:${pad(soon.getMinutes())}`);
    await page.getByRole('button', { name: 'Schedule post' }).click();
    const alert = page.getByRole('alert').filter({ hasText: refused.body.error });
    await alert.waitFor({ timeout: 15_000 });
    expect((await users.alice.client.get('/api/v1/scheduled_statuses')).body).toEqual([]);
    expectCleanPage(page);
    await context.close();
  }, 60_000);

  it('keeps a draft across a reload, offers it back, and posts it with Ctrl+Enter', async () => {
    const { inst, users } = env();
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/compose`);
    await page.getByLabel('Post text').pressSequentially('A thought worth keeping');
    await page.waitForFunction(() => (localStorage.getItem(Object.keys(localStorage).find((k) => k.startsWith('hearth.drafts.')) ?? '') ?? '').includes('worth keeping'));
    await page.reload();
    await page.getByRole('heading', { name: 'New post', level: 1 }).waitFor();
    expect(await page.getByLabel('Post text').inputValue()).toBe('');
    // The drafts list has it too.
    await page.getByText('Drafts (1)').click();
    await page.getByRole('list', { name: 'Drafts' }).getByRole('listitem').filter({ hasText: 'A thought worth keeping' }).waitFor();
    await page.getByRole('button', { name: 'Restore draft' }).click();
    expect(await page.getByLabel('Post text').inputValue()).toBe('A thought worth keeping');
    await page.getByLabel('Post text').press('Control+Enter');
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor({ timeout: 15_000 });
    expect((await latest()).content).toBe('<p>A thought worth keeping</p>');
    // Posted drafts are forgotten: the composer offers nothing next time.
    await page.goto(`${inst.url}/compose`);
    await page.getByLabel('Post text').waitFor();
    expect(await page.getByRole('button', { name: 'Restore draft' }).count()).toBe(0);
    expectCleanPage(page);
    await context.close();
  }, 60_000);

  it('suggests accounts for @ and custom emojis for :, chosen with the arrow keys and Enter', async () => {
    const { inst, users } = env();
    const png = join(scratch, 'blobcat.png');
    writeFileSync(png, await sharp({ create: { width: 32, height: 32, channels: 4, background: { r: 200, g: 120, b: 0, alpha: 1 } } }).png().toBuffer());
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      expect(await main(['emoji', 'add', '--data', inst.dataDir, '--shortcode', 'blobcat', '--file', png])).toBe(0);
      expect(await main(['emoji', 'add', '--data', inst.dataDir, '--shortcode', 'blobfox', '--file', png])).toBe(0);
    } finally {
      log.mockRestore();
    }
    await postStatus(users.bob.client, { status: 'Tomatoes again #gardening' });
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/compose`);
    const text = page.getByLabel('Post text');
    await text.pressSequentially('Hello @bo');
    const listbox = page.getByRole('listbox', { name: 'Suggestions' });
    await listbox.getByRole('option').filter({ hasText: '@bob' }).waitFor();
    await text.press('Enter');
    expect(await text.inputValue()).toBe('Hello @bob ');
    await text.pressSequentially('look :blob');
    await listbox.getByRole('option', { name: ':blobfox:' }).waitFor();
    expect(await listbox.getByRole('option').count()).toBe(2);
    expect(await listbox.getByRole('option', { selected: true }).textContent()).toBe(':blobcat:');
    await text.press('ArrowDown');
    expect(await listbox.getByRole('option', { selected: true }).textContent()).toBe(':blobfox:');
    expect(await text.getAttribute('aria-activedescendant')).toBe(await listbox.getByRole('option', { selected: true }).getAttribute('id'));
    await text.press('Enter');
    expect(await text.inputValue()).toBe('Hello @bob look :blobfox: ');
    // Hashtags the instance knows are suggested too; Escape closes the list and keeps the text.
    await text.pressSequentially('#garde');
    await listbox.getByRole('option', { name: '#gardening' }).waitFor();
    await text.press('Escape');
    await listbox.waitFor({ state: 'detached' });
    expect(await text.inputValue()).toBe('Hello @bob look :blobfox: #garde');
    await text.pressSequentially('n');
    await listbox.getByRole('option', { name: '#gardening' }).waitFor();
    await text.press('Tab');
    expect(await text.inputValue()).toBe('Hello @bob look :blobfox: #gardening ');
    await page.getByRole('button', { name: 'Post', exact: true }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor({ timeout: 15_000 });
    const status = await latest();
    expect(status.mentions.map((m: { acct: string }) => m.acct)).toEqual(['bob']);
    expect(status.emojis.map((e: { shortcode: string }) => e.shortcode)).toEqual(['blobfox']);
    expect(status.tags.map((t: { name: string }) => t.name)).toEqual(['gardening']);
    expectCleanPage(page);
    await context.close();
  }, 60_000);
});
