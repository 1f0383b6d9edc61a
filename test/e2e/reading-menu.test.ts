import { describe, expect, it } from 'vitest';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';
import { WAIT, article, until } from './reading-helpers.js';

interface ApiStatus { id: string; pinned?: boolean; muted?: boolean }
interface ApiAnnouncement { id: string; read: boolean; reactions: { name: string; count: number; me: boolean }[] }

describe('reading: the More menu, announcements and Explore', () => {
  const env = useInstance(['alice', 'bob', 'carol']);
  const browser = useChromium();

  it('More: delete (confirmed), delete & redraft, edit history, pin, mute conversation, mute author; reply, quote and report routes', { timeout: 60_000 }, async () => {
    const { inst, users } = env();
    const { alice, bob } = users;
    await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`, {});
    const gone = await postStatus(alice.client, { status: 'my post to delete' });
    const redraft = await postStatus(alice.client, { status: 'my post to redraft #tagged', spoiler_text: 'redraft cw' });
    const edited = await postStatus(alice.client, { status: 'my first wording' });
    expect((await alice.client.put(`/api/v1/statuses/${edited.id}`, { status: 'my second wording' })).status).toBe(200);
    const pinMe = await postStatus(alice.client, { status: 'my post to pin' });
    const bobs = await postStatus(bob.client, { status: 'a post by bob for the menu' });
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, alice);
    await page.goto(`${inst.url}/`);
    const feed = page.getByRole('feed', { name: 'Home' });
    const status = (id: string) => alice.client.get(`/api/v1/statuses/${id}`);
    const menu = async (text: string, item: string) => {
      const a = article(feed, text);
      await a.waitFor(WAIT);
      await a.getByRole('button', { name: 'More', exact: true }).click();
      await a.getByRole('list', { name: /^More actions/ }).getByRole('button', { name: item, exact: true }).click();
    };

    await menu('my post to delete', 'Delete');
    const confirm = page.getByRole('dialog', { name: 'Delete this post?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await status(gone.id)).status).toBe(200);
    await menu('my post to delete', 'Delete');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await until(async () => (await status(gone.id)).status === 404);
    await article(feed, 'my post to delete').waitFor({ state: 'detached', ...WAIT });

    await menu('my post to pin', 'Pin on profile');
    await until(async () => ((await status(pinMe.id)).body as ApiStatus).pinned === true);
    await menu('my post to pin', 'Mute conversation');
    await until(async () => ((await status(pinMe.id)).body as ApiStatus).muted === true);
    await menu('my post to pin', 'Unpin from profile');
    await until(async () => ((await status(pinMe.id)).body as ApiStatus).pinned === false);

    await article(feed, 'my second wording').getByText('edited').waitFor(WAIT);
    await menu('my second wording', 'Edit history');
    const history = page.getByRole('dialog', { name: 'Edit history' });
    await history.getByText('my first wording').waitFor(WAIT);
    expect(await history.getByRole('listitem').count()).toBe(2);
    await page.keyboard.press('Escape');
    await history.waitFor({ state: 'detached', ...WAIT });

    await menu('a post by bob for the menu', 'Mute @bob');
    await until(async () => ((await alice.client.get(`/api/v1/accounts/relationships?id[]=${bob.accountId}`)).body as { muting: boolean }[])[0]?.muting);
    expect(await page.getByRole('status').filter({ hasText: '@bob is muted.' }).count()).toBe(1);
    await page.goto(`${inst.url}/@bob/${bobs.id}`);
    const bobsPost = article(page.getByRole('feed', { name: 'Thread' }), 'a post by bob for the menu');
    await bobsPost.getByRole('button', { name: 'Reply' }).click();
    await until(async () => page.url().endsWith(`/compose?in_reply_to=${bobs.id}`));
    await page.goto(`${inst.url}/@bob/${bobs.id}`);
    await bobsPost.getByRole('button', { name: 'More', exact: true }).click();
    await bobsPost.getByRole('button', { name: 'Quote' }).click();
    await until(async () => page.url().endsWith(`/compose?quote=${bobs.id}`));
    await page.goto(`${inst.url}/@bob/${bobs.id}`);
    await bobsPost.getByRole('button', { name: 'More', exact: true }).click();
    await bobsPost.getByRole('button', { name: 'Report @bob' }).click();
    await until(async () => page.url().endsWith(`/@bob?report=${bobs.id}`));

    // Block, after a confirmation.
    const dave = await inst.createUser('dave');
    const davesPost = await postStatus(dave.client, { status: 'a post by dave' });
    await page.goto(`${inst.url}/@dave/${davesPost.id}`);
    const daves = article(page.getByRole('feed', { name: 'Thread' }), 'a post by dave');
    await daves.getByRole('button', { name: 'More', exact: true }).click();
    await daves.getByRole('button', { name: 'Block @dave' }).click();
    await page.getByRole('dialog', { name: 'Block @dave?' }).getByRole('button', { name: 'Block', exact: true }).click();
    await until(async () => ((await alice.client.get(`/api/v1/accounts/relationships?id[]=${dave.accountId}`)).body as { blocking: boolean }[])[0]?.blocking);

    await page.goto(`${inst.url}/@alice/${redraft.id}`);
    const own = article(page.getByRole('feed', { name: 'Thread' }), 'redraft cw');
    await own.getByRole('button', { name: 'More', exact: true }).click();
    await own.getByRole('button', { name: 'Edit', exact: true }).click();
    await until(async () => page.url().endsWith(`/compose?edit=${redraft.id}`));
    await page.goto(`${inst.url}/@alice/${redraft.id}`);
    await own.getByRole('button', { name: 'More', exact: true }).click();
    await own.getByRole('button', { name: 'Delete & redraft' }).click();
    await page.getByRole('dialog', { name: 'Delete and redraft this post?' }).getByRole('button', { name: 'Delete & redraft' }).click();
    await until(async () => page.url().endsWith('/compose?redraft=1'));
    const stored = await page.evaluate(() => JSON.parse(sessionStorage.getItem('hearth.redraft') ?? 'null') as { id: string; text: string; spoilerText: string } | null);
    expect(stored).toMatchObject({ id: redraft.id, text: 'my post to redraft #tagged', spoilerText: 'redraft cw' });
    expect((await status(redraft.id)).status).toBe(404);
    expectCleanPage(page);
    await context.close();
  });

  it('announcements on home: add and remove a reaction, dismiss; Explore: trending posts, hashtags with their week, links', async () => {
    const { inst, users } = env();
    const { alice, carol } = users;
    const admin = await inst.createUser('boss', { role: 'admin', scopes: 'read write admin:read admin:write' });
    const made = await admin.client.post('/api/v1/admin/announcements', { text: 'The instance moves on Sunday' });
    expect(made.status).toBe(200);
    const announcements = async () => (await alice.client.get('/api/v1/announcements')).body as ApiAnnouncement[];
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, alice);
    await page.goto(`${inst.url}/`);
    const region = page.getByRole('region', { name: 'Announcements' });
    const item = region.getByRole('article').filter({ hasText: 'The instance moves on Sunday' });
    await item.waitFor(WAIT);
    await item.getByRole('button', { name: 'Add reaction' }).click();
    await item.getByRole('button', { name: 'React with 🎉' }).click();
    await until(async () => (await announcements())[0]?.reactions.some((r) => r.name === '🎉' && r.me && r.count === 1));
    await item.getByRole('button', { name: '🎉 1' }).click();
    await until(async () => (await announcements())[0]?.reactions.length === 0);
    await item.getByRole('button', { name: 'Dismiss' }).click();
    await until(async () => (await announcements())[0]?.read === true);
    await item.waitFor({ state: 'detached', ...WAIT });

    // Trends: a tag two people used, a post two others favourited (from a discoverable account).
    // (bob is not in it: the first test has alice mute him, and trends leave out the muted.)
    await carol.client.patch('/api/v1/accounts/update_credentials', { discoverable: true });
    const popular = await postStatus(carol.client, { status: 'the popular #gardening post' });
    await postStatus(admin.client, { status: 'me too #gardening' });
    await alice.client.post(`/api/v1/statuses/${popular.id}/favourite`, {});
    await admin.client.post(`/api/v1/statuses/${popular.id}/favourite`, {});
    const trendingTags = (await alice.client.get('/api/v1/trends/tags')).body as { name: string }[];
    expect(trendingTags.map((t) => t.name)).toContain('gardening');
    await page.getByRole('link', { name: 'Explore' }).click();
    await page.getByRole('heading', { name: 'Explore' }).waitFor(WAIT);
    expect(await page.getByRole('link', { name: 'Posts', exact: true }).getAttribute('aria-current')).toBe('page');
    const trendingPosts = (await alice.client.get('/api/v1/trends/statuses')).body as { id: string }[];
    expect(trendingPosts.map((s) => s.id)).toContain(popular.id);
    await article(page.getByRole('feed', { name: 'Trending posts' }), 'the popular #gardening post').waitFor(WAIT);
    await page.getByRole('link', { name: 'Hashtags' }).click();
    const tags = page.getByRole('list', { name: 'Trending hashtags' });
    await tags.getByRole('link', { name: '#gardening' }).waitFor(WAIT);
    expect(await tags.getByRole('img', { name: /^Uses per day over the last 7 days: (\d+, ){6}2$/ }).count()).toBe(1);
    await page.getByRole('link', { name: 'News' }).click();
    await page.getByText('No trending links right now.').waitFor(WAIT);
    expectCleanPage(page);
    await context.close();
  });
});
