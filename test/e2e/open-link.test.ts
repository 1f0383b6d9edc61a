import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';

/*
 * `/open?uri=`: what a web+ap:// or web+mastodon:// link opens in the app (the desktop turns the
 * link into this path): a post or an account, by URL or by handle, resolved through the instance's
 * search and replaced by the thread or the profile; and a clear sentence when nothing is found.
 */

describe('opening links in the app', () => {
  const env = useInstance(['alice', 'bob']);
  const browser = useChromium();

  /** Opens `/open?uri=<uri>` in a page signed in as bob. */
  async function openLink(page: Page, uri: string): Promise<void> {
    const { inst } = env();
    await page.goto(`${inst.url}/open?uri=${encodeURIComponent(uri)}`);
  }

  it('a post by its URL opens its thread; an account by URL or handle, its profile', async () => {
    const { inst, users } = env();
    const post = (await postStatus(users.alice.client, { status: 'A post to open from a link' })) as { id: string; url: string; uri: string };
    const { context, page } = await openPage(browser());
    page.setDefaultTimeout(15_000);
    await signInWithToken(page, inst, users.bob);
    const host = new URL(inst.url).host;

    // The post's URL, and its ActivityPub id.
    const entries: number[] = [];
    for (const uri of [post.url, post.uri]) {
      await openLink(page, uri);
      await page.getByRole('heading', { name: 'Post by alice', level: 1 }).waitFor();
      await page.getByRole('article').filter({ hasText: 'A post to open from a link' }).first().waitFor();
      expect(new URL(page.url()).pathname).toBe(`/@alice/${post.id}`);
      entries.push((await page.evaluate(() => window.history.length)) as number);
    }
    // The /open page was replaced by the thread, not followed by it: one history entry per link.
    expect(entries[1]).toBe((entries[0] ?? 0) + 1);

    // The account by handle (with and without the acct: scheme) and by URL.
    for (const uri of [`acct:alice@${host}`, `@alice@${host}`, `${inst.url}/@alice`]) {
      await openLink(page, uri);
      await page.getByRole('heading', { name: 'alice', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/@alice');
    }
    // What the app showed is what the instance holds.
    const found = (await users.bob.client.get(`/api/v2/search?q=${encodeURIComponent(post.url)}&resolve=true`)).body as { statuses: { id: string }[] };
    expect(found.statuses.map((s) => s.id)).toEqual([post.id]);
    expectCleanPage(page);
    await context.close();
  });

  it('says so when nothing is found, and Try again finds what exists by then', async () => {
    const { inst, users } = env();
    const { context, page } = await openPage(browser());
    page.setDefaultTimeout(15_000);
    await signInWithToken(page, inst, users.bob);
    const host = new URL(inst.url).host;

    await openLink(page, `${inst.url}/@alice/1234567890`);
    await page.getByText(/Hearth could not find this post or account/).waitFor();
    expect(new URL(page.url()).pathname).toBe('/open');

    await openLink(page, `acct:carol@${host}`);
    await page.getByText(`Hearth could not find this account: acct:carol@${host}`, { exact: false }).waitFor();
    // carol joins meanwhile: Try again opens her profile.
    const carol = await inst.createUser('carol');
    expect((await users.bob.client.get(`/api/v1/accounts/${carol.accountId}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('heading', { name: 'carol', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/@carol');

    // Not a post or an account at all: refused without asking the instance.
    for (const uri of ['javascript:alert(1)', 'http://elsewhere.example/@mona/1', 'https://user:pw@social.example/@mona', '']) {
      await openLink(page, uri);
      await page.getByText('This link cannot be opened: it does not name a post or an account Hearth can look up.').waitFor();
    }
    expectCleanPage(page);
    await context.close();
  });
});
