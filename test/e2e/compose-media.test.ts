import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { ffmpeg } from '../media/helpers.js';
import { expectCleanPage, openPage, seriousA11yViolations, signInWithToken, useChromium } from '../helpers/chromium.js';

/** A PNG of random pixels (it does not compress, so its upload takes a while on a throttled link). */
async function noisePng(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = Math.floor(Math.random() * 256);
  return sharp(pixels, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** Attachments in the composer: the upload's progress, alt text, focal point, removal. */
describe('attaching media to a post', () => {
  const env = useInstance(['alice']);
  const browser = useChromium();

  it('uploads a picture with a progress bar; alt text and the focal point (click and numbers) reach the instance', async () => {
    const { inst, users } = env();
    const png = await noisePng(500, 400);
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/compose`);
    await page.getByLabel('Post text').fill('A noisy picture');
    // A slow link (about 400 KB/s up), so that the upload can be watched.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 400 * 1024 });
    await page.getByLabel('Add media').setInputFiles({ name: 'noise.png', mimeType: 'image/png', buffer: png });
    const progress = page.getByRole('progressbar', { name: 'Uploading noise.png' });
    await progress.waitFor({ timeout: 15_000 });
    // Posting waits for the upload.
    expect(await page.getByRole('button', { name: 'Post', exact: true }).isDisabled()).toBe(true);
    await progress.waitFor({ state: 'detached', timeout: 30_000 });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

    await page.getByLabel('Alt text for attachment 1').fill('Grey static, like an old television');
    const picker = page.getByRole('button', { name: 'Set the focal point of attachment 1' });
    const box = await picker.boundingBox();
    if (!box) throw new Error('no preview');
    // Three quarters across and a quarter down: x 0.5, y 0.5 (y grows upwards).
    await picker.click({ position: { x: box.width * 0.75, y: box.height * 0.25 } });
    expect(Number(await page.getByLabel('Horizontal (-1 left, 1 right)').inputValue())).toBeCloseTo(0.5, 1);
    expect(Number(await page.getByLabel('Vertical (-1 bottom, 1 top)').inputValue())).toBeCloseTo(0.5, 1);
    await page.getByLabel('Vertical (-1 bottom, 1 top)').fill('-0.25');
    await page.getByLabel('Vertical (-1 bottom, 1 top)').press('Tab');
    await page.getByLabel('Mark media as sensitive').check();
    await page.getByRole('button', { name: 'Post', exact: true }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor({ timeout: 15_000 });

    const status = (await users.alice.client.get(`/api/v1/accounts/${users.alice.accountId}/statuses?limit=1`)).body[0];
    expect(status.sensitive).toBe(true);
    expect(status.media_attachments).toHaveLength(1);
    const media = status.media_attachments[0];
    expect(media.description).toBe('Grey static, like an old television');
    expect(media.meta.focus.x).toBeCloseTo(0.5, 1);
    expect(media.meta.focus.y).toBeCloseTo(-0.25, 2);
    expect(media.meta.original).toMatchObject({ width: 500, height: 400 });
    expectCleanPage(page);
    await context.close();
  }, 90_000);

  it('a removed attachment is not posted', async () => {
    const { inst, users } = env();
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/compose`);
    await page.getByLabel('Post text').fill('Changed my mind about the picture');
    const small = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 10, g: 200, b: 90 } } }).png().toBuffer();
    await page.getByLabel('Add media').setInputFiles([
      { name: 'one.png', mimeType: 'image/png', buffer: small },
      { name: 'two.png', mimeType: 'image/png', buffer: small },
    ]);
    await page.getByLabel('Alt text for attachment 2').waitFor({ timeout: 15_000 });
    await page.getByLabel('Alt text for attachment 1').waitFor();
    await page.getByLabel('Alt text for attachment 2').fill('the second');
    await page.getByRole('button', { name: 'Remove attachment 1' }).click();
    expect(await page.getByRole('list', { name: 'Attachments' }).getByRole('listitem').count()).toBe(1);
    await page.getByRole('button', { name: 'Post', exact: true }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor({ timeout: 15_000 });
    const status = (await users.alice.client.get(`/api/v1/accounts/${users.alice.accountId}/statuses?limit=1`)).body[0];
    expect(status.content).toBe('<p>Changed my mind about the picture</p>');
    expect(status.media_attachments.map((m: { description: string }) => m.description)).toEqual(['the second']);
    expectCleanPage(page);
    await context.close();
  }, 60_000);

  it('a video the instance answers 202 for is asked after until processed, and only then can be posted', async () => {
    const { inst, users } = env();
    // Silent MPEG-4 Part 2: the instance converts it to an H.264 loop (gifv), which takes a moment.
    const video = ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=480x360:rate=25', '-t', '4', '-c:v', 'mpeg4'], 'mp4');
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/compose`);
    await page.getByLabel('Post text').fill('A short clip');
    await page.getByLabel('Add media').setInputFiles({ name: 'clip.mp4', mimeType: 'video/mp4', buffer: video });
    await page.getByRole('status').filter({ hasText: 'Processing clip.mp4' }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole('button', { name: 'Post', exact: true }).isDisabled()).toBe(true);
    // Ready means processed: the instance refuses (422) media still being processed.
    await page.getByLabel('Alt text for attachment 1').fill('A moving test pattern', { timeout: 30_000 });
    await page.getByRole('button', { name: 'Post', exact: true }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor({ timeout: 15_000 });
    const status = (await users.alice.client.get(`/api/v1/accounts/${users.alice.accountId}/statuses?limit=1`)).body[0];
    expect(status.content).toBe('<p>A short clip</p>');
    expect(status.media_attachments.map((m: { type: string; description: string }) => [m.type, m.description])).toEqual([['gifv', 'A moving test pattern']]);
    expectCleanPage(page);
    await context.close();
  }, 60_000);

  it('the composer with an attachment, a content warning and the schedule open has no serious accessibility problem, light or dark', async () => {
    const { inst, users } = env();
    for (const colorScheme of ['light', 'dark'] as const) {
      const { context, page } = await openPage(browser(), { colorScheme });
      await signInWithToken(page, inst, users.alice);
      await page.goto(`${inst.url}/compose`);
      await page.getByLabel('Post text').fill('Checking');
      await page.getByRole('button', { name: 'Content warning' }).click();
      await page.getByRole('button', { name: 'Schedule', exact: true }).click();
      const small = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 90, g: 20, b: 190 } } }).png().toBuffer();
      await page.getByLabel('Add media').setInputFiles({ name: 'purple.png', mimeType: 'image/png', buffer: small });
      await page.getByLabel('Alt text for attachment 1').waitFor({ timeout: 15_000 });
      expect(await seriousA11yViolations(page)).toEqual([]);
      expectCleanPage(page);
      await context.close();
    }
  }, 60_000);
});
