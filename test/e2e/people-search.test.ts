import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startFederated } from '../federation/helpers.js';
import { postStatus } from '../helpers/fixtures.js';
import type { TestUser } from '../helpers/instance.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;

describe('search and the people screen', () => {
  let a: Inst;
  let b: Inst;
  let alice: TestUser;
  let bob: TestUser;
  let remy: TestUser;
  let rita: TestUser;
  beforeAll(async () => {
    a = await startFederated('127.0.0.2');
    b = await startFederated('127.0.0.3');
    alice = await a.createUser('alice');
    bob = await a.createUser('bob');
    remy = await b.createUser('remy');
    rita = await b.createUser('rita');
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });
  const browser = useChromium();

  it('finds local accounts, hashtags and posts, and resolves a remote handle and a remote post URL', async () => {
    await bob.client.request('PATCH', '/api/v1/accounts/update_credentials', { form: { display_name: 'Bob Local' } });
    await postStatus(bob.client, { status: 'Searching for #treasure' });
    await remy.client.request('PATCH', '/api/v1/accounts/update_credentials', { form: { display_name: 'Remy Far' } });
    const remote = await postStatus(remy.client, { status: 'A post from far away' });
    const { context, page } = await openPage(browser());
    await signInWithToken(page, a, alice);
    await page.goto(`${a.url}/search`);
    await page.getByLabel('Search for people, hashtags, posts or addresses').fill('bob');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('list', { name: 'People' }).getByRole('link', { name: /Bob Local/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Bob Local' }).waitFor({ timeout: 15_000 });

    await page.goto(`${a.url}/search?q=${encodeURIComponent('#treasure')}`);
    await page.getByRole('list', { name: 'Hashtags' }).getByRole('link', { name: '#treasure' }).waitFor({ timeout: 15_000 });

    // A remote handle this instance has never seen: resolved over WebFinger, then shown and linked.
    const handle = `remy@${b.domain}`;
    expect((await alice.client.get(`/api/v1/accounts/lookup?acct=${handle}`, { skipSchema: true })).status).toBe(404);
    await page.goto(`${a.url}/search`);
    await page.getByLabel('Search for people, hashtags, posts or addresses').fill(`@${handle}`);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('list', { name: 'People' }).getByRole('link', { name: new RegExp(`@${handle}`) }).click();
    await page.getByRole('heading', { level: 1, name: 'Remy Far' }).waitFor({ timeout: 15_000 });
    expect((await alice.client.get(`/api/v1/accounts/lookup?acct=${handle}`)).body.display_name).toBe('Remy Far');

    // A post's address on the other server (its ActivityPub id; see the report about its HTML url).
    await page.goto(`${a.url}/search?q=${encodeURIComponent(remote.uri)}`);
    const found = page.getByRole('feed', { name: 'Posts found' }).getByRole('article').filter({ hasText: 'A post from far away' });
    await found.waitFor({ timeout: 15_000 });
    // It links into the app: the post's thread on this instance.
    const hrefs = await found.getByRole('link').evaluateAll((links) => links.map((l) => l.getAttribute('href') ?? ''));
    const thread = hrefs.findIndex((h) => new RegExp(`^/@${handle}/\\d+$`).test(h));
    expect(thread).toBeGreaterThanOrEqual(0);
    await found.getByRole('link').nth(thread).click();
    await page.waitForURL((u) => u.pathname === hrefs[thread], { timeout: 15_000 });
    expectCleanPage(page);
    await context.close();
  }, 60_000);

  it('opens a remote profile by its address before this instance has heard of the account', async () => {
    const { context, page } = await openPage(browser());
    await signInWithToken(page, a, alice);
    await rita.client.request('PATCH', '/api/v1/accounts/update_credentials', { form: { display_name: 'Rita Remote' } });
    await page.goto(`${a.url}/@rita@${b.domain}`);
    await page.getByRole('heading', { level: 1, name: 'Rita Remote' }).waitFor({ timeout: 15_000 });
    expect((await alice.client.get(`/api/v1/accounts/lookup?acct=rita@${b.domain}`)).status).toBe(200);
    expectCleanPage(page);
    await context.close();
  }, 60_000);

  it('dismisses a suggestion, unfollows a followed hashtag, and features and removes a hashtag', async () => {
    await bob.client.request('PATCH', '/api/v1/accounts/update_credentials', { form: { discoverable: 'true' } });
    await postStatus(bob.client, { status: 'Fresh and active' });
    await eventually(async () => (await alice.client.get('/api/v2/suggestions')).body.some((s: { account: { acct: string } }) => s.account.acct === 'bob'));
    await alice.client.post('/api/v1/tags/knitting/follow', {});
    await postStatus(alice.client, { status: 'Out in the #gardening patch' });

    const { context, page } = await openPage(browser());
    await signInWithToken(page, a, alice);
    await page.goto(`${a.url}/people`);
    await page.getByRole('button', { name: 'Dismiss @bob' }).click();
    await expect.poll(async () => (await alice.client.get('/api/v2/suggestions')).body.some((s: { account: { acct: string } }) => s.account.acct === 'bob'), { timeout: 15_000 }).toBe(false);

    await page.getByRole('navigation', { name: 'People sections' }).getByRole('link', { name: 'Followed hashtags' }).click();
    await page.getByRole('button', { name: 'Unfollow #knitting' }).click();
    await page.getByText('You follow no hashtags.', { exact: false }).waitFor({ timeout: 15_000 });
    await expect.poll(async () => (await alice.client.get('/api/v1/followed_tags')).body, { timeout: 15_000 }).toEqual([]);

    await page.getByRole('navigation', { name: 'People sections' }).getByRole('link', { name: 'Featured hashtags' }).click();
    await page.getByLabel('Hashtag to feature').fill('#gardening');
    await page.getByRole('button', { name: 'Feature', exact: true }).click();
    await page.getByRole('list', { name: 'Featured hashtags' }).getByRole('link', { name: '#gardening' }).waitFor({ timeout: 15_000 });
    await expect.poll(async () => (await alice.client.get('/api/v1/featured_tags')).body.map((t: { name: string }) => t.name), { timeout: 15_000 }).toEqual(['gardening']);
    // It shows on the profile's Hashtags tab too.
    await page.goto(`${a.url}/@alice?tab=hashtags`);
    await page.getByRole('list', { name: 'Featured hashtags' }).getByRole('link', { name: '#gardening' }).waitFor({ timeout: 15_000 });
    await page.goto(`${a.url}/people/featured`);
    await page.getByRole('button', { name: 'Remove #gardening' }).click();
    await expect.poll(async () => (await alice.client.get('/api/v1/featured_tags')).body, { timeout: 15_000 }).toEqual([]);
    expectCleanPage(page);
    await context.close();
  }, 60_000);
});
