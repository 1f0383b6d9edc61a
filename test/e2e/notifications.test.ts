import { describe, expect, it } from 'vitest';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';

describe('notifications', () => {
  const env = useInstance(['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'gina', 'hank']);
  const browser = useChromium();

  it('groups favourites, filters by type, clears the unread badge when read, and shows a new one live', async () => {
    const { inst, users } = env();
    const alice = users.alice.client;
    const post = await postStatus(alice, { status: 'Group me' });
    await users.bob.client.post(`/api/v1/statuses/${post.id}/favourite`, {});
    await users.carol.client.post(`/api/v1/statuses/${post.id}/favourite`, {});
    await postStatus(users.bob.client, { status: '@alice hello there' });
    expect((await alice.get('/api/v2/notifications/unread_count')).body.count).toBeGreaterThan(0);

    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/`);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: /Notifications.*unread/ }).waitFor({ timeout: 15_000 });
    await nav.getByRole('link', { name: /Notifications/ }).click();

    const all = page.getByRole('feed', { name: 'Notifications: All' });
    const group = all.getByRole('article', { name: 'carol and 1 other favourited your post' });
    await group.waitFor({ timeout: 15_000 });
    expect(await group.textContent()).toContain('Group me');
    await all.getByRole('article').filter({ hasText: 'hello there' }).waitFor();
    // Read: the marker moves to the newest notification and the badge goes.
    await expect.poll(async () => (await alice.get('/api/v2/notifications/unread_count')).body.count, { timeout: 15_000 }).toBe(0);
    await expect.poll(async () => await nav.getByRole('link', { name: /unread/ }).count(), { timeout: 15_000 }).toBe(0);
    const newest = (await alice.get('/api/v1/notifications?limit=1')).body[0].id;
    expect((await alice.get('/api/v1/markers?timeline[]=notifications')).body.notifications.last_read_id).toBe(newest);

    await page.getByRole('navigation', { name: 'Notification filters' }).getByRole('link', { name: 'Mentions' }).click();
    const mentions = page.getByRole('feed', { name: 'Notifications: Mentions' });
    await mentions.getByRole('article').filter({ hasText: 'hello there' }).waitFor({ timeout: 15_000 });
    expect(await mentions.getByRole('article', { name: /favourited/ }).count()).toBe(0);

    await page.getByRole('navigation', { name: 'Notification filters' }).getByRole('link', { name: 'All' }).click();
    await all.getByRole('article').first().waitFor({ timeout: 15_000 });
    // Live: a follow arrives over the streaming API while the screen is open, and is read at once.
    await users.dave.client.post(`/api/v1/accounts/${users.alice.accountId}/follow`, {});
    await all.getByRole('article', { name: 'dave followed you' }).waitFor({ timeout: 15_000 });
    await expect.poll(async () => (await alice.get('/api/v2/notifications/unread_count')).body.count, { timeout: 15_000 }).toBe(0);
    expectCleanPage(page);
    await context.close();
  }, 60_000);

  it('saves the notification policy, then accepts and dismisses the requests it filtered, one by one and in bulk', async () => {
    const { inst, users } = env();
    const alice = users.alice.client;
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/notifications/policy`);
    await page.getByLabel('People you don’t follow').selectOption('filter');
    await expect.poll(async () => (await alice.get('/api/v2/notifications/policy')).body.for_not_following, { timeout: 15_000 }).toBe('filter');

    for (const name of ['erin', 'frank', 'gina', 'hank'] as const) await postStatus(users[name].client, { status: `@alice a word from ${name}` });
    await expect.poll(async () => (await alice.get('/api/v1/notifications/requests')).body.length, { timeout: 15_000 }).toBe(4);
    // Filtered notifications are not streamed: the count shows when the screen is opened again.
    await page.reload();
    await page.getByRole('link', { name: 'Requests (4)' }).click({ timeout: 15_000 });
    const requests = page.getByRole('list', { name: 'Requests' });
    await requests.getByRole('link', { name: /@erin/ }).waitFor({ timeout: 15_000 });

    // What one request holds.
    await requests.getByRole('listitem').filter({ hasText: '@erin' }).getByRole('button', { name: 'Show notifications' }).click();
    await page.getByRole('feed', { name: 'Notifications from @erin' }).getByRole('article').filter({ hasText: 'a word from erin' }).waitFor({ timeout: 15_000 });

    await page.getByRole('button', { name: 'Accept @erin' }).click();
    await page.getByRole('button', { name: 'Dismiss @frank' }).click();
    await expect.poll(async () => (await alice.get('/api/v1/notifications/requests')).body.map((r: { account: { acct: string } }) => r.account.acct).sort(), { timeout: 15_000 }).toEqual(['gina', 'hank']);
    await page.getByRole('checkbox', { name: 'Select @gina' }).check();
    await page.getByRole('button', { name: 'Accept selected' }).click();
    await expect.poll(async () => (await alice.get('/api/v1/notifications/requests')).body.map((r: { account: { acct: string } }) => r.account.acct), { timeout: 15_000 }).toEqual(['hank']);
    await page.getByRole('checkbox', { name: 'Select all' }).check();
    await page.getByRole('button', { name: 'Dismiss selected' }).click();
    await page.getByText('No filtered notifications.').waitFor({ timeout: 15_000 });
    await expect.poll(async () => (await alice.get('/api/v1/notifications/requests')).body, { timeout: 15_000 }).toEqual([]);
    // Accepted senders' mentions are now ordinary notifications; dismissed ones are not.
    const from: string[] = (await alice.get('/api/v1/notifications?types[]=mention')).body.map((n: { account: { acct: string } }) => n.account.acct);
    expect(from).toEqual(expect.arrayContaining(['erin', 'gina']));
    expect(from).not.toContain('frank');
    expect(from).not.toContain('hank');
    expectCleanPage(page);
    await context.close();
  }, 60_000);
});
