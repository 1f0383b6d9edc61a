import { describe, expect, it } from 'vitest';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';
import { updateUserSettings } from '../../api/core/accounts/settings.js';
import { WAIT, article, until, uploadPicture } from './reading-helpers.js';

interface ApiPoll { id: string; voted: boolean; own_votes: number[]; options: { title: string; votes_count: number }[] }
interface ApiStatus { id: string; poll: ApiPoll | null; filtered?: { filter: { title: string; filter_action: string } }[]; content: string }

describe('reading: what a post shows', () => {
  const env = useInstance(['alice', 'bob']);
  const browser = useChromium();

  it('a content warning and sensitive media stay hidden until revealed; the viewer shows alt text; polls take votes', async () => {
    const { inst, users } = env();
    const { alice, bob } = users;
    await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`, {});
    await postStatus(bob.client, { status: 'the hidden words', spoiler_text: 'a cw topic' });
    const red = await uploadPicture(bob.client, 'a red square');
    const blue = await uploadPicture(bob.client, 'a blue square');
    await postStatus(bob.client, { status: 'sensitive pictures', media_ids: [red, blue], sensitive: true });
    const single = await postStatus(bob.client, { status: 'Cats or dogs?', poll: { options: ['cats', 'dogs'], expires_in: 3600 } });
    const multiple = await postStatus(bob.client, { status: 'Which fruits?', poll: { options: ['apples', 'pears', 'plums'], expires_in: 3600, multiple: true } });
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, alice);
    await page.goto(`${inst.url}/`);
    const feed = page.getByRole('feed', { name: 'Home' });

    const cw = article(feed, 'a cw topic');
    await cw.waitFor(WAIT);
    expect(await cw.getByText('the hidden words').count()).toBe(0);
    await cw.getByRole('button', { name: 'Show more' }).click();
    await cw.getByText('the hidden words').waitFor(WAIT);
    expect(await cw.getByRole('button', { name: 'Show less' }).getAttribute('aria-expanded')).toBe('true');

    const pics = article(feed, 'sensitive pictures');
    expect(await pics.getByRole('button', { name: /^Open image/ }).count()).toBe(0);
    await pics.getByRole('button', { name: 'Sensitive content: show media' }).click();
    await pics.getByRole('button', { name: 'Open image: a red square' }).click();
    const viewer = page.getByRole('dialog', { name: 'Media 1 of 2' });
    await viewer.getByText('Alt text: a red square').waitFor(WAIT);
    expect(await viewer.getByRole('img', { name: 'a red square' }).count()).toBe(1);
    await page.keyboard.press('ArrowRight');
    await page.getByRole('dialog', { name: 'Media 2 of 2' }).getByText('Alt text: a blue square').waitFor(WAIT);
    await page.keyboard.press('ArrowLeft');
    await page.getByRole('dialog', { name: 'Media 1 of 2' }).waitFor(WAIT);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached', ...WAIT });
    // The keyboard: o opens the focused post's media.
    await pics.focus();
    await page.keyboard.press('o');
    await page.getByRole('dialog', { name: 'Media 1 of 2' }).getByText('Alt text: a red square').waitFor(WAIT);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached', ...WAIT });
    await pics.getByRole('button', { name: 'Hide media' }).click();
    expect(await pics.getByRole('button', { name: /^Open image/ }).count()).toBe(0);

    const poll = async (id: string) => ((await alice.client.get(`/api/v1/statuses/${id}`)).body as ApiStatus).poll;
    const one = article(feed, 'Cats or dogs?');
    await one.getByRole('radio', { name: 'dogs' }).check();
    await one.getByRole('button', { name: 'Vote' }).click();
    await one.getByText('(your choice)').waitFor(WAIT);
    await one.getByText('100%').waitFor(WAIT);
    expect(await until(async () => ((await poll(single.id))?.voted ? await poll(single.id) : null))).toMatchObject({ own_votes: [1] });
    const many = article(feed, 'Which fruits?');
    await many.getByRole('checkbox', { name: 'apples' }).check();
    await many.getByRole('checkbox', { name: 'plums' }).check();
    await many.getByRole('button', { name: 'Vote' }).click();
    const voted = await until(async () => ((await poll(multiple.id))?.voted ? await poll(multiple.id) : null));
    expect(voted.own_votes).toEqual([0, 2]);
    expect(voted.options.map((o) => o.votes_count)).toEqual([1, 0, 1]);
    expect(await many.getByText('(your choice)').count()).toBe(2);
    // r replies to the focused post.
    await many.focus();
    await page.keyboard.press('r');
    await until(async () => page.url().endsWith(`/compose?in_reply_to=${multiple.id}`));
    expectCleanPage(page);
    await context.close();
  });

  it('filters as Mastodon applies them: warn collapses with "Filtered: <title>" and Show anyway, hide removes', async () => {
    const { inst, users } = env();
    const { alice, bob } = users;
    await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`, {});
    expect((await alice.client.post('/api/v2/filters', { title: 'Politics', context: ['home'], filter_action: 'warn', keywords_attributes: [{ keyword: 'election' }] })).status).toBe(200);
    expect((await alice.client.post('/api/v2/filters', { title: 'Spoilers', context: ['home'], filter_action: 'hide', keywords_attributes: [{ keyword: 'spoiler' }] })).status).toBe(200);
    const warned = await postStatus(bob.client, { status: 'the election night results' });
    const hidden = await postStatus(bob.client, { status: 'a big spoiler inside' });
    await postStatus(bob.client, { status: 'a plain unfiltered post' });
    // The API marks both; what the app does with the marks is what this test is about.
    const home = (await alice.client.get('/api/v1/timelines/home?limit=40')).body as ApiStatus[];
    expect(home.find((s) => s.id === warned.id)?.filtered?.[0]?.filter.filter_action).toBe('warn');
    const hiddenInApi = home.find((s) => s.id === hidden.id);
    if (hiddenInApi) expect(hiddenInApi.filtered?.[0]?.filter.filter_action).toBe('hide');

    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, alice);
    await page.goto(`${inst.url}/`);
    const feed = page.getByRole('feed', { name: 'Home' });
    await article(feed, 'a plain unfiltered post').waitFor(WAIT);
    const collapsed = feed.getByRole('article', { name: /^Filtered post by/ });
    await collapsed.getByText('Filtered: Politics').waitFor(WAIT);
    expect(await feed.getByText('the election night results').count()).toBe(0);
    expect(await feed.getByText('a big spoiler inside').count()).toBe(0);
    await collapsed.getByRole('button', { name: 'Show anyway' }).click();
    await article(feed, 'the election night results').waitFor(WAIT);
    expect(await feed.getByText('a big spoiler inside').count()).toBe(0);
    expectCleanPage(page);
    await context.close();
  });

  it('a thread: ancestors, the focused post highlighted and focused, replies indented by depth; a quote shows the quoted post', async () => {
    const { inst, users } = env();
    const { alice, bob } = users;
    const root = await postStatus(bob.client, { status: 'thread root post' });
    const middle = await postStatus(alice.client, { status: '@bob thread middle reply', in_reply_to_id: root.id });
    const deep = await postStatus(bob.client, { status: 'thread deep reply', in_reply_to_id: middle.id });
    await postStatus(alice.client, { status: 'thread deeper reply', in_reply_to_id: deep.id });
    await postStatus(bob.client, { status: 'thread second reply', in_reply_to_id: middle.id });
    const quoted = await postStatus(bob.client, { status: 'a post worth quoting' });
    const quote = await postStatus(alice.client, { status: 'alice quotes it', quoted_status_id: quoted.id });
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, alice);
    await page.goto(`${inst.url}/@alice/${middle.id}`);
    const thread = page.getByRole('feed', { name: 'Thread' });
    await article(thread, 'thread second reply').waitFor(WAIT);
    const texts = await thread.getByRole('article').allTextContents();
    const order = ['thread root post', 'thread middle reply', 'thread deep reply', 'thread deeper reply', 'thread second reply'];
    expect(texts.map((t) => order.findIndex((o) => t.includes(o)))).toEqual([0, 1, 2, 3, 4]);
    const focused = article(thread, 'thread middle reply');
    expect(await focused.getAttribute('aria-current')).toBe('true');
    const current = await Promise.all((await thread.getByRole('article').all()).map((a) => a.getAttribute('aria-current')));
    expect(current.filter((c) => c === 'true')).toHaveLength(1);
    expect(await focused.textContent()).toContain('Replying to @bob');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-current'))).toBe('true');
    const x = async (text: string) => (await article(thread, text).boundingBox())?.x ?? 0;
    expect(await x('thread deep reply')).toBeGreaterThan(await x('thread middle reply'));
    expect(await x('thread deeper reply')).toBeGreaterThan(await x('thread deep reply'));
    expect(await x('thread second reply')).toBe(await x('thread deep reply'));

    await page.goto(`${inst.url}/@alice/${quote.id}`);
    const quoteView = article(page.getByRole('feed', { name: 'Thread' }), 'alice quotes it');
    await quoteView.getByText('a post worth quoting').waitFor(WAIT);
    const api = (await alice.client.get(`/api/v1/statuses/${quote.id}`)).body as { quote: { state: string; quoted_status: { id: string } } };
    expect(api.quote.quoted_status.id).toBe(quoted.id);
    // Once its author revokes the quote, the quoted post gives way to a sentence saying so.
    expect((await bob.client.post(`/api/v1/statuses/${quoted.id}/quotes/${quote.id}/revoke`, {})).status).toBe(200);
    expect(((await alice.client.get(`/api/v1/statuses/${quote.id}`)).body as { quote: { state: string } }).quote.state).toBe('revoked');
    await page.reload();
    await quoteView.getByText('The quoted post’s author removed this quote.').waitFor(WAIT);
    expect(await quoteView.getByText('a post worth quoting').count()).toBe(0);
    expectCleanPage(page);
    await context.close();
  });
  it('the reading preferences: content warnings open and sensitive media shown from the start', async () => {
    const { inst, users } = env();
    const { alice, bob } = users;
    await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`, {});
    // No Mastodon API sets these (the settings screen does, through Hearth's own); the rig sets them here.
    updateUserSettings(inst.deps, alice.userId, { expand_spoilers: true, expand_media: 'show_all' });
    expect((await alice.client.get('/api/v1/preferences')).body).toMatchObject({ 'reading:expand:spoilers': true, 'reading:expand:media': 'show_all' });
    await postStatus(bob.client, { status: 'words shown at once', spoiler_text: 'an open cw' });
    const pic = await uploadPicture(bob.client, 'a green square');
    await postStatus(bob.client, { status: 'sensitive but shown', media_ids: [pic], sensitive: true });
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, alice);
    await page.goto(`${inst.url}/`);
    const feed = page.getByRole('feed', { name: 'Home' });
    const cw = article(feed, 'an open cw');
    await cw.getByText('words shown at once').waitFor(WAIT);
    await cw.getByRole('button', { name: 'Show less' }).click();
    expect(await cw.getByText('words shown at once').count()).toBe(0);
    await article(feed, 'sensitive but shown').getByRole('button', { name: 'Open image: a green square' }).waitFor(WAIT);
    expect(await article(feed, 'sensitive but shown').getByRole('button', { name: 'Sensitive content: show media' }).count()).toBe(0);
    updateUserSettings(inst.deps, alice.userId, { expand_spoilers: false, expand_media: 'default' });
    expectCleanPage(page);
    await context.close();
  });
});
