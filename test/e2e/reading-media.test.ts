import { describe, expect, it } from 'vitest';
import type { TestClient } from '../helpers/client.js';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import { form, mp4, tone } from '../media/helpers.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';
import { article, until, WAIT } from './reading-helpers.js';

/** Uploads a file and waits until the instance has processed it; returns the attachment id. */
async function upload(client: TestClient, data: Buffer, type: string, name: string, description: string): Promise<string> {
  const res = await client.post('/api/v2/media', undefined, { multipart: form({ file: { data, type, name } }, { description }) });
  expect([200, 202]).toContain(res.status);
  const id = (res.body as { id: string }).id;
  await until(async () => (await client.get(`/api/v1/media/${id}`)).status === 200, 30_000);
  return id;
}

describe('video, audio and GIF attachments, and copying a link', () => {
  const env = useInstance(['alice', 'bob']);
  const browser = useChromium();

  it('shows each kind with its description, plays video and GIFs in the viewer, and copies a post’s link', async () => {
    const { inst, users } = env();
    await users.alice.client.post(`/api/v1/accounts/${users.bob.accountId}/follow`, {});
    const video = await upload(users.bob.client, mp4(), 'video/mp4', 'clip.mp4', 'A test pattern with a tone');
    const gif = await upload(users.bob.client, mp4({ silent: true }), 'video/mp4', 'loop.mp4', 'A silent loop');
    const audio = await upload(users.bob.client, tone('wav'), 'audio/wav', 'tone.wav', 'A 440 Hz tone');
    const types = await Promise.all([video, gif, audio].map(async (id) => ((await users.bob.client.get(`/api/v1/media/${id}`)).body as { type: string }).type));
    expect(types).toEqual(['video', 'gifv', 'audio']);
    const withVideo = await postStatus(users.bob.client, { status: 'A clip', media_ids: [video] });
    await postStatus(users.bob.client, { status: 'A loop', media_ids: [gif] });
    await postStatus(users.bob.client, { status: 'A sound', media_ids: [audio] });

    const { context, page } = await openPage(browser());
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: inst.url });
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/`);
    const feed = page.getByRole('feed', { name: 'Home' });

    // Audio plays in place, named by its description.
    const sound = article(feed, 'A sound');
    await sound.waitFor(WAIT);
    expect(await sound.getByLabel('A 440 Hz tone').evaluate((el: { tagName: string }) => el.tagName)).toBe('AUDIO');

    // A video opens in the viewer with its controls and alt text.
    await article(feed, 'A clip').getByRole('button', { name: 'Open video: A test pattern with a tone' }).click();
    const viewer = page.getByRole('dialog', { name: 'Media' });
    await viewer.waitFor(WAIT);
    expect(await viewer.textContent()).toContain('Alt text: A test pattern with a tone');
    const played = await viewer.locator('video').evaluate((v: { controls: boolean; src: string }) => ({ controls: v.controls, src: v.src }));
    expect(played.controls).toBe(true);
    expect(played.src.startsWith(inst.url)).toBe(true);
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached', ...WAIT });

    // A GIF (gifv) loops muted in the viewer.
    await article(feed, 'A loop').getByRole('button', { name: 'Open GIF: A silent loop' }).click();
    const loop = await page.getByRole('dialog', { name: 'Media' }).locator('video').evaluate((v: { loop: boolean; muted: boolean }) => ({ loop: v.loop, muted: v.muted }));
    expect(loop).toEqual({ loop: true, muted: true });
    await page.keyboard.press('Escape');

    // Copy link puts the post's address on the clipboard.
    const clip = article(feed, 'A clip');
    await clip.getByRole('button', { name: 'More' }).click();
    await clip.getByRole('button', { name: 'Copy link' }).click();
    await page.getByRole('status').filter({ hasText: 'Link copied.' }).waitFor(WAIT);
    const copied = await page.evaluate('navigator.clipboard.readText()');
    expect(copied).toBe(withVideo.url);
    expectCleanPage(page);
    await context.close();
  }, 90_000);
});
