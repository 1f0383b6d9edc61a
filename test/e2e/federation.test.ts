import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInstance, TestUser } from '../helpers/instance.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';
import { eventually, startFederated } from '../federation/helpers.js';

/**
 * Two real instances federating on loopback (127.0.0.2 and 127.0.0.3): from the app on the first,
 * a person finds an account on the second, follows it, sees its new post arrive live, replies, and
 * the reply arrives on the other side.
 */
describe('the app, federating', () => {
  let a: TestInstance & { domain: string };
  let b: TestInstance & { domain: string };
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    a = await startFederated('127.0.0.2');
    b = await startFederated('127.0.0.3');
    alice = await a.createUser('alice');
    bob = await b.createUser('bob');
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });
  const browser = useChromium();

  it('follows a remote account, sees its post live, replies, and the reply arrives there', async () => {
    const { context, page } = await openPage(browser());
    await signInWithToken(page, a, alice);
    const handle = `bob@${b.domain}`;

    // Find the remote account by its handle and follow it from its profile.
    await page.goto(`${a.url}/search`);
    await page.getByLabel('Search for people, hashtags, posts or addresses').fill(`@${handle}`);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('list', { name: 'People' }).getByRole('link', { name: new RegExp(`@${handle}`) }).click();
    await page.getByRole('button', { name: 'Follow' }).click({ timeout: 15_000 });
    const bobHere = (await alice.client.get(`/api/v1/accounts/lookup?acct=${handle}`)).body as { id: string };
    await eventually(async () => {
      const rel = (await alice.client.get(`/api/v1/accounts/relationships?id[]=${bobHere.id}`)).body as { following: boolean }[];
      return rel[0]?.following;
    }, 15_000);
    const followers = (await bob.client.get(`/api/v1/accounts/${bob.accountId}/followers`)).body as { acct: string }[];
    expect(followers.map((f) => f.acct)).toContain(`alice@${a.domain}`);

    // The home timeline is open when bob posts on his server: the post arrives over streaming.
    // (Its stream subscribes once the screen shows; the post is made after that.)
    const subscribed = new Promise<void>((resolve) => {
      page.on('websocket', (ws) => ws.on('framesent', (frame) => String(frame.payload).includes('"subscribe"') && resolve()));
    });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await subscribed;
    const post = (await bob.client.post('/api/v1/statuses', { status: 'Hello from the other server' })).body as { id: string; uri: string };
    // It reaches this instance by federation, then the open home timeline over streaming.
    await eventually(async () => ((await alice.client.get('/api/v1/timelines/home')).body as { content: string }[]).some((s) => s.content.includes('Hello from the other server')), 20_000);
    await page.getByRole('button', { name: '1 new post' }).click({ timeout: 20_000 });
    const article = page.getByRole('feed', { name: 'Home' }).getByRole('article').filter({ hasText: 'Hello from the other server' });
    await article.waitFor();

    // Reply from the app: the composer has bob's handle in it already.
    await article.getByRole('button', { name: 'Reply' }).click();
    const box = page.getByRole('textbox', { name: 'Reply' });
    await box.waitFor();
    expect(await box.inputValue()).toContain(`@${handle}`);
    await box.press('End');
    await box.pressSequentially(' Nice to meet you!');
    await page.getByRole('button', { name: 'Reply', exact: true }).last().click();

    // The reply reaches bob's server as a reply to his post, and mentions him.
    const mention = await eventually(async () => {
      const list = (await bob.client.get('/api/v1/notifications?types[]=mention')).body as { status?: { content: string; in_reply_to_id: string | null } }[];
      return list.find((n) => n.status?.content.includes('Nice to meet you!'));
    }, 20_000);
    expect(mention.status?.in_reply_to_id).toBe(post.id);
    expectCleanPage(page);
    await context.close();
  }, 90_000);
});
