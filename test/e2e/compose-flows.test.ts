import { describe, expect, it } from 'vitest';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';
import { picture, upload } from '../media/helpers.js';

/** masto's camelCase form of an entity, as the app keeps it (the redraft hand-over stores one). */
function camelize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelize);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()), camelize(v)]));
}

/** What /compose does with its query string: replies, quotes, edits, and delete and redraft. */
describe('replying, quoting, editing and redrafting', () => {
  const env = useInstance(['alice', 'bob', 'carol']);
  const browser = useChromium();

  async function latest(): Promise<any> {
    const { users } = env();
    return (await users.alice.client.get(`/api/v1/accounts/${users.alice.accountId}/statuses?limit=1`)).body[0];
  }

  it('a reply prefills the mentions, the content warning and a visibility no wider than the original', async () => {
    const { inst, users } = env();
    const original = await postStatus(users.bob.client, { status: '@alice what do you think, @carol?', spoiler_text: 'politics', visibility: 'unlisted' });
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/compose?in_reply_to=${original.id}`);
    await page.getByRole('heading', { name: 'Reply', level: 1 }).waitFor();
    await page.getByRole('region', { name: 'Replying to' }).getByRole('article').filter({ hasText: 'politics' }).waitFor();
    const text = page.getByRole('textbox', { name: 'Reply' });
    expect(await text.inputValue()).toBe('@bob @carol ');
    expect(await page.getByLabel('Content warning').inputValue()).toBe('politics');
    expect(await page.getByLabel('Visibility').inputValue()).toBe('unlisted');
    await text.press('End');
    await text.pressSequentially('I agree');
    await page.getByRole('button', { name: 'Reply', exact: true }).click();
    await page.waitForURL(/\/@alice\/\w+$/, { timeout: 15_000 });
    const reply = await latest();
    expect(page.url()).toBe(`${inst.url}/@alice/${reply.id}`);
    expect(reply).toMatchObject({ in_reply_to_id: original.id, spoiler_text: 'politics', visibility: 'unlisted' });
    expect(reply.mentions.map((m: { acct: string }) => m.acct).sort()).toEqual(['bob', 'carol']);
    // A reply to a post that is gone says so, with a retry, and offers no form.
    await page.goto(`${inst.url}/compose?in_reply_to=999999999`);
    await page.getByRole('alert').filter({ hasText: 'This could not be found' }).waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Try again' }).waitFor();
    expect(await page.getByRole('button', { name: 'Reply', exact: true }).count()).toBe(0);
    expectCleanPage(page);
    await context.close();
  }, 60_000);

  it('a quote carries the quoted post and the quote policy chosen', async () => {
    const { inst, users } = env();
    const original = await postStatus(users.bob.client, { status: 'Quote me on this' });
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/compose?quote=${original.id}`);
    await page.getByRole('heading', { name: 'Quote post', level: 1 }).waitFor();
    await page.getByRole('region', { name: 'Quoting' }).getByRole('article').filter({ hasText: 'Quote me on this' }).waitFor();
    await page.getByLabel('Post text').fill('Well said');
    await page.getByLabel('Who can quote').selectOption({ label: 'Followers only' });
    await page.getByRole('button', { name: 'Post', exact: true }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor({ timeout: 15_000 });
    const quote = await latest();
    expect(quote.quote.quoted_status.id).toBe(original.id);
    expect(quote.quote_approval.automatic).toEqual(['followers']);
    expectCleanPage(page);
    await context.close();
  }, 60_000);

  it('an edit starts from the source, saves through PUT, and the history shows both versions', async () => {
    const { inst, users } = env();
    const first = await postStatus(users.alice.client, { status: 'Fist version #typo' });
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/compose?edit=${first.id}`);
    await page.getByRole('heading', { name: 'Edit post', level: 1 }).waitFor();
    const text = page.getByLabel('Post text');
    expect(await text.inputValue()).toBe('Fist version #typo');
    expect(await page.getByLabel('Visibility').isDisabled()).toBe(true);
    await text.fill('First version, fixed');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(`${inst.url}/@alice/${first.id}`, { timeout: 15_000 });
    const status = (await users.alice.client.get(`/api/v1/statuses/${first.id}`)).body;
    expect(status.content).toBe('<p>First version, fixed</p>');
    expect(status.edited_at).not.toBeNull();
    const history = (await users.alice.client.get(`/api/v1/statuses/${first.id}/history`)).body;
    expect(history).toHaveLength(2);
    // The history dialog lists both versions, the newest first.
    await page.goto(`${inst.url}/compose?edit=${first.id}`);
    await page.getByRole('button', { name: 'Edit history' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit history' });
    const versions = dialog.getByRole('list', { name: 'Versions' }).getByRole('listitem');
    await versions.first().waitFor();
    expect(await versions.count()).toBe(2);
    expect(await versions.nth(0).textContent()).toContain('First version, fixed');
    expect(await versions.nth(1).textContent()).toContain('Fist version');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expectCleanPage(page);
    await context.close();
  }, 60_000);

  it('delete and redraft fills the form from the deleted post and re-attaches its media', async () => {
    const { inst, users } = env();
    const media = await upload(users.alice.client, await picture(80, 60, 'png'), { type: 'image/png', fields: { description: 'a small picture' } });
    const posted = await postStatus(users.alice.client, { status: 'Posted too early', spoiler_text: 'draft', visibility: 'unlisted', language: 'fr', media_ids: [media.body.id] });
    const deleted = await users.alice.client.delete(`/api/v1/statuses/${posted.id}`);
    expect(deleted.body.text).toBe('Posted too early');
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/`);
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await page.evaluate((json: string) => sessionStorage.setItem('hearth.redraft', json), JSON.stringify(camelize(deleted.body)));
    await page.goto(`${inst.url}/compose?redraft=1`);
    await page.getByRole('heading', { name: 'Redraft post', level: 1 }).waitFor();
    expect(await page.getByLabel('Post text').inputValue()).toBe('Posted too early');
    expect(await page.getByLabel('Content warning').inputValue()).toBe('draft');
    expect(await page.getByLabel('Visibility').inputValue()).toBe('unlisted');
    expect(await page.getByLabel('Language').inputValue()).toBe('fr');
    expect(await page.getByLabel('Alt text for attachment 1').inputValue()).toBe('a small picture');
    await page.getByLabel('Post text').fill('Posted at the right time');
    await page.getByRole('button', { name: 'Post', exact: true }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor({ timeout: 15_000 });
    const redrafted = await latest();
    expect(redrafted).toMatchObject({ content: '<p>Posted at the right time</p>', spoiler_text: 'draft', visibility: 'unlisted', language: 'fr' });
    expect(redrafted.media_attachments.map((m: { id: string }) => m.id)).toEqual([media.body.id]);
    expect(await page.evaluate(() => sessionStorage.getItem('hearth.redraft'))).toBeNull();
    expectCleanPage(page);
    await context.close();
  }, 60_000);
});
