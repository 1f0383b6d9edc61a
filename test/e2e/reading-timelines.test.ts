import { describe, expect, it } from 'vitest';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';
import { WAIT, article, postMany, until, visibleArticles } from './reading-helpers.js';

interface ApiStatus { id: string; content: string; favourited: boolean; reblogged: boolean; bookmarked: boolean }

describe('reading: timelines', () => {
  const env = useInstance(['alice', 'bob']);
  const browser = useChromium();

  it('favourite, boost and bookmark from the home feed; the bookmarks and favourites timelines; j/k, f and Enter', async () => {
    const { inst, users } = env();
    const { alice, bob } = users;
    await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`, {});
    const posts = await postMany(bob.client, 'first batch', 5);
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, alice);
    await page.goto(`${inst.url}/`);
    const feed = page.getByRole('feed', { name: 'Home' });
    const fifth = article(feed, 'first batch 5');
    await fifth.waitFor(WAIT);
    const status = async (id: string) => (await alice.client.get(`/api/v1/statuses/${id}`)).body as ApiStatus;
    const target = posts[4]?.id ?? '';
    await fifth.getByRole('button', { name: 'Favourite' }).click();
    await fifth.getByRole('button', { name: 'Boost' }).click();
    await fifth.getByRole('button', { name: 'Bookmark' }).click();
    await until(async () => {
      const s = await status(target);
      return s.favourited && s.reblogged && s.bookmarked;
    });
    expect(await fifth.getByRole('button', { name: 'Favourite' }).getAttribute('aria-pressed')).toBe('true');

    // Bookmarks and favourites: their own timelines (paged by Link headers).
    await page.getByRole('link', { name: 'Bookmarks' }).click();
    await article(page.getByRole('feed', { name: 'Bookmarks' }), 'first batch 5').waitFor(WAIT);
    expect(await page.getByRole('feed', { name: 'Bookmarks' }).getByRole('article').count()).toBe(1);
    await page.getByRole('link', { name: 'Favourites' }).click();
    await article(page.getByRole('feed', { name: 'Favourites' }), 'first batch 5').waitFor(WAIT);
    // Taking the bookmark back from there is seen by the API.
    await article(page.getByRole('feed', { name: 'Favourites' }), 'first batch 5').getByRole('button', { name: 'Bookmark' }).click();
    await until(async () => !(await status(target)).bookmarked);

    // The keyboard: j moves to the next post, k back, f favourites the focused one, Enter opens it.
    await page.getByRole('link', { name: 'Home' }).click();
    await feed.getByRole('article').first().waitFor(WAIT);
    const focused = () => page.evaluate(() => ({ text: document.activeElement?.textContent ?? '', pos: document.activeElement?.getAttribute('aria-posinset') ?? '' }));
    await page.keyboard.press('j');
    await until(async () => (await focused()).pos === '1');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await until(async () => (await focused()).pos === '3');
    await page.keyboard.press('k');
    await until(async () => (await focused()).pos === '2');
    const text = (await focused()).text;
    const n = /first batch (\d)/.exec(text)?.[1] ?? '';
    const picked = posts[Number(n) - 1]?.id ?? '';
    expect(picked).not.toBe('');
    expect((await status(picked)).favourited).toBe(false);
    await page.keyboard.press('f');
    await until(async () => (await status(picked)).favourited);
    await page.keyboard.press('b');
    await until(async () => (await status(picked)).reblogged);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /^Post by/ }).waitFor(WAIT);
    expect(page.url()).toContain(`/${picked}`);
    expectCleanPage(page);
    await context.close();
  });

  it('live posts wait behind "1 new post" without moving the reader; the read marker is saved and shown', { timeout: 60_000 }, async () => {
    const { inst, users } = env();
    const { alice, bob } = users;
    await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`, {});
    const many = await postMany(bob.client, 'scroll post', 30);
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, alice);
    await page.goto(`${inst.url}/`);
    const feed = page.getByRole('feed', { name: 'Home' });
    await article(feed, 'scroll post 30').waitFor(WAIT);
    // Seeing the newest post at the top saves it as the home marker (throttled: a few seconds).
    const newest = many[29]?.id ?? '';
    const marker = async () => ((await alice.client.get('/api/v1/markers?timeline[]=home')).body as { home?: { last_read_id: string } }).home?.last_read_id;
    await until(async () => (await marker()) === newest);

    await page.mouse.wheel(0, 2500);
    await until(async () => !(await visibleArticles(feed)).some((t) => t.includes('scroll post 30')));
    await page.waitForTimeout(300);
    const before = (await visibleArticles(feed))[0];
    expect(before).toBeTruthy();
    const live = await postStatus(bob.client, { status: 'a live post arrives' });
    const bar = page.getByRole('button', { name: '1 new post' });
    await bar.waitFor(WAIT);
    expect((await visibleArticles(feed))[0]).toBe(before);
    expect(await feed.getByText('a live post arrives').count()).toBe(0);
    await bar.click();
    await article(feed, 'a live post arrives').waitFor(WAIT);
    expect((await visibleArticles(feed))[0]).toContain('a live post arrives');
    await until(async () => (await marker()) === live.id);
    await context.close();

    // Opening home again with an older marker shows where the reader left off and jumps there.
    const tenth = many[9]?.id ?? '';
    expect((await alice.client.post('/api/v1/markers', { home: { last_read_id: tenth } })).status).toBe(200);
    const second = await openPage(browser());
    await signInWithToken(second.page, inst, alice);
    await second.page.goto(`${inst.url}/`);
    const jump = second.page.getByRole('button', { name: 'Jump to where you left off' });
    await jump.waitFor(WAIT);
    await jump.click();
    await second.page.getByText('You left off here').waitFor(WAIT);
    await until(async () => (await second.page.evaluate(() => document.activeElement?.textContent ?? '')).includes('scroll post 10'));
    expectCleanPage(page);
    expectCleanPage(second.page);
    await second.context.close();
  });

  it('a hashtag timeline with follow and unfollow, a list timeline titled from the list, the local timeline', async () => {
    const { inst, users } = env();
    const { alice, bob } = users;
    await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`, {});
    await postStatus(bob.client, { status: 'look at my #Cats today' });
    const list = (await alice.client.post('/api/v1/lists', { title: 'Family people' })).body as { id: string };
    expect((await alice.client.post(`/api/v1/lists/${list.id}/accounts`, { account_ids: [bob.accountId] })).status).toBe(200);
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, alice);
    await page.goto(`${inst.url}/tags/cats`);
    await page.getByRole('heading', { name: '#cats' }).waitFor(WAIT);
    await article(page.getByRole('feed', { name: '#cats' }), 'look at my').waitFor(WAIT);
    const followed = async () => ((await alice.client.get('/api/v1/followed_tags')).body as { name: string }[]).map((t) => t.name.toLowerCase());
    await page.getByRole('button', { name: 'Follow #cats' }).click();
    await until(async () => (await followed()).includes('cats'));
    await page.getByRole('button', { name: 'Unfollow #cats' }).click();
    await until(async () => !(await followed()).includes('cats'));
    // A new tagged post arrives live on the hashtag stream (given a moment to subscribe: the
    // socket is shared and opens in the background).
    await page.waitForTimeout(1000);
    await postStatus(bob.client, { status: 'more #cats here' });
    await page.getByRole('button', { name: '1 new post' }).click(WAIT);
    await article(page.getByRole('feed', { name: '#cats' }), 'more #cats here').waitFor(WAIT);

    await page.goto(`${inst.url}/lists/${list.id}`);
    await page.getByRole('heading', { name: 'Family people' }).waitFor(WAIT);
    await article(page.getByRole('feed', { name: 'Family people' }), 'more #cats here').waitFor(WAIT);
    await page.waitForTimeout(1000);
    await postStatus(bob.client, { status: 'for the list stream' });
    await page.getByRole('button', { name: '1 new post' }).click(WAIT);
    await article(page.getByRole('feed', { name: 'Family people' }), 'for the list stream').waitFor(WAIT);

    await page.getByRole('link', { name: 'Local' }).click();
    await article(page.getByRole('feed', { name: 'Local' }), 'for the list stream').waitFor(WAIT);
    expectCleanPage(page);
    await context.close();
  });
});
