import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';

/** A 600×300 PNG: left half red, right half blue (a crop to a square shows which part was kept). */
async function twoColourPng(): Promise<Buffer> {
  const half = (r: number, b: number) => sharp({ create: { width: 300, height: 300, channels: 3, background: { r, g: 0, b } } }).png().toBuffer();
  return sharp({ create: { width: 600, height: 300, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .composite([
      { input: await half(255, 0), left: 0, top: 0 },
      { input: await half(0, 255), left: 300, top: 0 },
    ])
    .png()
    .toBuffer();
}

describe('settings: profile, preferences, theme', () => {
  const env = useInstance(['alice']);
  const browser = useChromium();

  it('saves the profile with fields and flags, and an avatar cropped to a square moved with the arrow keys', { timeout: 60_000 }, async () => {
    const { inst, users } = env();
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/settings/profile`);
    await page.getByRole('heading', { name: 'Settings: Profile' }).waitFor({ timeout: 15_000 });
    await page.getByLabel('Display name').fill('Alice A.');
    await page.getByLabel('Bio').fill('Gardener and baker.');
    await page.getByLabel('Label 1').fill('Pronouns');
    await page.getByLabel('Content 1').fill('she/her');
    await page.getByLabel('Label 2').fill('Garden');
    await page.getByLabel('Content 2').fill('tomatoes');
    await page.getByRole('checkbox', { name: 'Approve followers by hand' }).check();
    await page.getByRole('checkbox', { name: 'This is a bot account' }).check();
    await page.getByRole('checkbox', { name: 'Hide who you follow and who follows you' }).check();
    await page.getByLabel('Avatar (square)').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: await twoColourPng() });
    const dialog = page.getByRole('dialog', { name: 'Crop the avatar' });
    const area = dialog.getByRole('img', { name: 'Crop area' });
    await area.waitFor({ timeout: 15_000 });
    // The square starts centred (half red, half blue); far to the right it is all blue.
    await area.focus();
    for (let i = 0; i < 6; i++) await page.keyboard.press('Shift+ArrowRight');
    await dialog.getByRole('button', { name: 'Crop' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('A new avatar is ready').waitFor();
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor({ timeout: 15_000 });

    const me = (await users.alice.client.get('/api/v1/accounts/verify_credentials')).body;
    expect(me.display_name).toBe('Alice A.');
    expect(me.source.note).toBe('Gardener and baker.');
    expect(me.fields.map((f: { name: string; value: string }) => [f.name, f.value])).toEqual([
      ['Pronouns', 'she/her'],
      ['Garden', 'tomatoes'],
    ]);
    expect(me.locked).toBe(true);
    expect(me.bot).toBe(true);
    expect(me.hide_collections).toBe(true);
    expect(me.avatar).not.toContain('missing');
    const avatar = await (await fetch(me.avatar.startsWith('http') ? me.avatar : `${inst.url}${me.avatar}`)).arrayBuffer();
    const meta = await sharp(Buffer.from(avatar)).metadata();
    expect(meta.width).toBe(meta.height);
    const { dominant } = await sharp(Buffer.from(avatar)).stats();
    expect(dominant.b).toBeGreaterThan(200);
    expect(dominant.r).toBeLessThan(60);
    expectCleanPage(page);
    await context.close();
  });

  it('saves posting defaults on the server, and switches the theme at once', { timeout: 60_000 }, async () => {
    const { inst, users } = env();
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/settings`);
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Preferences' }).click();
    await page.getByLabel('Default visibility').selectOption('private');
    await page.getByLabel('Default language of posts').selectOption('de');
    await page.getByRole('checkbox', { name: 'Always mark my media as sensitive' }).check();
    await page.getByRole('button', { name: 'Save posting defaults' }).click();
    await page.getByText('Posting defaults saved.').waitFor({ timeout: 15_000 });
    const me = (await users.alice.client.get('/api/v1/accounts/verify_credentials')).body;
    expect(me.source).toMatchObject({ privacy: 'private', language: 'de', sensitive: true });

    // Strings run in the page (the test code has no DOM types).
    const background = () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    const theme = () => page.evaluate<string | undefined>('document.documentElement.dataset.theme');
    const light = await background();
    await page.getByRole('radio', { name: 'Dark' }).check();
    expect(await theme()).toBe('dark');
    expect(await background()).not.toBe(light);
    expect(await background()).toBe('rgb(23, 21, 19)');
    await page.getByRole('checkbox', { name: 'Always show posts behind content warnings' }).check();
    // Kept across a reload, before the settings screen loads.
    await page.goto(`${inst.url}/`);
    await page.getByRole('heading', { name: 'Home' }).waitFor({ timeout: 15_000 });
    expect(await theme()).toBe('dark');
    expect(await page.evaluate(() => JSON.parse(localStorage.getItem('hearth.prefs') ?? '{}'))).toMatchObject({ theme: 'dark', expandSpoilers: true });
    expectCleanPage(page);
    await context.close();
  });
});
