import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { createUserWithRole } from '../helpers/roles.js';
import { registerApp, userToken } from '../oauth/flow.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';

describe("settings: authorized apps, and the owner's instance settings", () => {
  let inst: TestInstance;
  let owner: TestUser;
  const browser = useChromium();

  beforeAll(async () => {
    inst = await startInstance({ registrations: 'closed' });
    owner = await createUserWithRole(inst, 'kim', 'owner');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('revokes an authorized app: its token stops working', { timeout: 60_000 }, async () => {
    const app = await registerApp(inst.anon, { name: 'Old phone app', scopes: 'read write' });
    const token = (await userToken(inst, app, owner, 'read')).access_token;
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token })).status).toBe(200);
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, owner);
    await page.goto(`${inst.url}/settings/apps`);
    await page.getByRole('button', { name: 'Revoke Old phone app' }).click();
    await page.getByText('No apps are authorized.').waitFor({ timeout: 15_000 });
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token })).status).toBe(401);
    expectCleanPage(page);
    await context.close();
  });

  it('changes the name, description and sign-ups, adds a rule, and uploads a custom emoji', { timeout: 60_000 }, async () => {
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, owner);
    await page.goto(`${inst.url}/settings/instance`);
    await page.getByLabel('Instance name').fill('Kim’s place');
    await page.getByLabel('Description').fill('A quiet home on the fediverse');
    await page.getByLabel('Who can sign up').selectOption('approval');
    await page.getByRole('button', { name: 'Save instance settings' }).click();
    await page.getByText('Instance settings saved.').waitFor({ timeout: 15_000 });
    const v2 = (await inst.anon.get('/api/v2/instance')).body;
    expect(v2.title).toBe('Kim’s place');
    expect(v2.description).toBe('A quiet home on the fediverse');
    expect(v2.registrations).toMatchObject({ enabled: true, approval_required: true });

    await page.getByLabel('New rule').fill('Be kind');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('list', { name: 'Rules' }).getByText('Be kind').waitFor({ timeout: 15_000 });
    expect((await inst.anon.get('/api/v1/instance/rules')).body.map((r: { text: string }) => r.text)).toEqual(['Be kind']);

    const png = await sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 30, g: 160, b: 90, alpha: 1 } } }).png().toBuffer();
    await page.getByLabel('Shortcode').fill('leaf');
    await page.getByLabel('Image (PNG, GIF or WebP)').setInputFiles({ name: 'leaf.png', mimeType: 'image/png', buffer: png });
    await page.getByRole('button', { name: 'Upload emoji' }).click();
    await page.getByRole('list', { name: 'Custom emojis' }).getByText(':leaf:').waitFor({ timeout: 15_000 });
    expect((await inst.anon.get('/api/v1/custom_emojis')).body.map((e: { shortcode: string }) => e.shortcode)).toEqual(['leaf']);
    expectCleanPage(page);
    await context.close();
  });

  it('tells anyone but the owner that these settings are the owner’s', { timeout: 60_000 }, async () => {
    const someone = await inst.createUser('sam');
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, someone);
    await page.goto(`${inst.url}/settings/instance`);
    await page.getByText('Only the owner of this instance can change its settings.').waitFor({ timeout: 15_000 });
    expect((await inst.anon.get('/api/v2/instance')).body.title).toBe('Kim’s place');
    expectCleanPage(page);
    await context.close();
  });
});
