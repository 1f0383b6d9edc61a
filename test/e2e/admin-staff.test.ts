import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountWarningsOf } from '../../api/db/repos/admin-accounts.js';
import { appToken } from '../accounts/helpers.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { createUserWithRole } from '../helpers/roles.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';

describe('staff screens on the admin API', () => {
  let inst: TestInstance;
  let owner: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  const browser = useChromium();

  beforeAll(async () => {
    inst = await startInstance({ registrations: 'approval' });
    owner = await createUserWithRole(inst, 'boss', 'owner');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
  });
  afterAll(async () => {
    await inst.close();
  });

  async function open(path: string, user = owner) {
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, user);
    await page.goto(`${inst.url}${path}`);
    return { context, page };
  }

  it('approves a sign-up, suspends an account with a strike, and resolves a report', { timeout: 60_000 }, async () => {
    const app = appToken(inst);
    const signUp = await inst.anon.post('/api/v1/accounts', { username: 'cousin', email: 'cousin@example.test', password: 'correct horse battery', agreement: true, locale: 'en', reason: 'Family' }, { token: app.token });
    expect(signUp.status, signUp.text).toBe(200);
    const report = await bob.client.post('/api/v1/reports', { account_id: carol.accountId, comment: 'Spam again', category: 'spam' });
    expect(report.status, report.text).toBe(200);

    const { context, page } = await open('/admin');
    await page.getByRole('heading', { name: 'Sign-up approvals' }).waitFor({ timeout: 15_000 });
    await page.getByText('“Family”').waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Approve @cousin' }).click();
    await page.getByText('No sign-ups are waiting.').waitFor({ timeout: 15_000 });
    const cousin = (await owner.client.get('/api/v1/admin/accounts?username=cousin')).body[0];
    expect(cousin.approved).toBe(true);

    const nav = page.getByRole('navigation', { name: 'Administration sections' });
    await nav.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('button', { name: 'Assign report on @carol to me' }).click();
    await page.getByRole('button', { name: 'Unassign report on @carol' }).waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Resolve report on @carol' }).click();
    await page.getByText('No open reports.').waitFor({ timeout: 15_000 });
    const resolved = (await owner.client.get(`/api/v1/admin/reports/${report.body.id}`)).body;
    expect(resolved.action_taken).toBe(true);
    expect(resolved.assigned_account.id).toBe(owner.accountId);
    await page.getByRole('button', { name: 'Resolved', pressed: false }).click();
    await page.getByRole('button', { name: 'Reopen report on @carol' }).click();
    await page.getByText('No resolved reports.').waitFor({ timeout: 15_000 });
    expect((await owner.client.get(`/api/v1/admin/reports/${report.body.id}`)).body.action_taken).toBe(false);
    await nav.getByRole('link', { name: 'Accounts' }).click();
    await page.getByLabel('Username').fill('carol');
    await page.getByRole('button', { name: 'Search accounts' }).click();
    await page.getByRole('button', { name: 'Moderate @carol' }).click();
    const dialog = page.getByRole('dialog', { name: 'Moderate @carol' });
    await dialog.getByRole('radio', { name: 'Suspend' }).check();
    await dialog.getByLabel('Note to the person (the strike’s text)').fill('Repeated spam.');
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 15_000 });
    await page.getByRole('list', { name: 'Accounts' }).getByText('suspended').waitFor({ timeout: 15_000 });
    expect((await owner.client.get(`/api/v1/admin/accounts/${carol.accountId}`)).body.suspended).toBe(true);
    expect(accountWarningsOf(inst.deps.db, carol.accountId)[0]).toMatchObject({ text: 'Repeated spam.' });

    expectCleanPage(page);
    await context.close();
  });

  it('blocks a domain, creates a role and gives it, publishes an announcement, and manages a webhook', { timeout: 60_000 }, async () => {
    const { context, page } = await open('/admin/domains');
    await page.getByLabel('Domain to block').fill('bad.example');
    await page.getByLabel('Severity').selectOption('suspend');
    await page.getByRole('checkbox', { name: 'Reject media files' }).check();
    await page.getByRole('button', { name: 'Block domain' }).click();
    await page.getByRole('button', { name: 'Lift the block of bad.example' }).waitFor({ timeout: 15_000 });
    const [block] = (await owner.client.get('/api/v1/admin/domain_blocks')).body;
    expect(block).toMatchObject({ domain: 'bad.example', severity: 'suspend', reject_media: true });

    const nav = page.getByRole('navigation', { name: 'Administration sections' });
    await nav.getByRole('link', { name: 'Roles' }).click();
    await page.getByLabel('Role name').fill('Helpers');
    await page.getByRole('checkbox', { name: 'Manage reports' }).check();
    await page.getByRole('button', { name: 'Create role' }).click();
    await page.getByRole('list', { name: 'Roles' }).getByText('Helpers').waitFor({ timeout: 15_000 });
    const role = (await owner.client.get('/api/v1/admin/roles')).body.find((r: { name: string }) => r.name === 'Helpers');
    expect(Number(role.permissions) & 0x10).toBe(0x10);
    await page.getByLabel('Account (username)').fill('bob');
    await page.getByLabel('Role', { exact: true }).selectOption({ label: 'Helpers' });
    await page.getByRole('button', { name: 'Give role' }).click();
    await page.getByText('@bob now has the role Helpers.').waitFor({ timeout: 15_000 });
    expect((await owner.client.get(`/api/v1/admin/accounts/${bob.accountId}`)).body.role.id).toBe(role.id);

    await nav.getByRole('link', { name: 'Announcements' }).click();
    await page.getByLabel('New announcement').fill('Tea at five');
    await page.getByRole('button', { name: 'Create announcement' }).click();
    // Created announcements are published at once, as on Mastodon.
    await page.getByRole('button', { name: 'Unpublish “Tea at five”', exact: true }).click();
    await page.getByRole('button', { name: 'Publish “Tea at five”', exact: true }).waitFor({ timeout: 15_000 });
    await expect.poll(async () => (await bob.client.get('/api/v1/announcements')).body, { timeout: 15_000 }).toEqual([]);
    await page.getByRole('button', { name: 'Edit “Tea at five”' }).click();
    await page.getByLabel('Edit the announcement').fill('Tea at six');
    await page.getByRole('button', { name: 'Save announcement' }).click();
    await page.getByRole('button', { name: 'Publish “Tea at six”', exact: true }).click();
    await page.getByRole('button', { name: 'Unpublish “Tea at six”', exact: true }).waitFor({ timeout: 15_000 });
    await expect.poll(async () => (await bob.client.get('/api/v1/announcements')).body.map((a: { content: string }) => a.content), { timeout: 15_000 }).toEqual(['<p>Tea at six</p>']);

    await nav.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Endpoint URL').fill('https://hooks.example/in');
    await page.getByRole('checkbox', { name: 'report.created' }).check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const toggle = page.getByRole('button', { name: 'Enabled: https://hooks.example/in' });
    await toggle.waitFor({ timeout: 15_000 });
    const [hook] = (await owner.client.get('/api/v1/admin/webhooks')).body;
    expect(hook).toMatchObject({ url: 'https://hooks.example/in', events: ['report.created'], enabled: true });
    await toggle.click();
    await page.getByRole('button', { name: 'Enabled: https://hooks.example/in', pressed: false }).waitFor({ timeout: 15_000 });
    await expect.poll(async () => (await owner.client.get(`/api/v1/admin/webhooks/${hook.id}`)).body.enabled, { timeout: 15_000 }).toBe(false);
    await page.getByRole('button', { name: 'Rotate the secret of https://hooks.example/in' }).click();
    await expect.poll(async () => (await owner.client.get(`/api/v1/admin/webhooks/${hook.id}`)).body.secret, { timeout: 15_000 }).not.toBe(hook.secret);
    expectCleanPage(page);
    await context.close();
  });

  it('shows a person without staff permissions no staff screens', { timeout: 60_000 }, async () => {
    const { context, page } = await open('/admin/accounts', bob);
    // bob now holds "Helpers" (reports only): just that section.
    await page.getByRole('link', { name: 'Reports' }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole('navigation', { name: 'Administration sections' }).getByRole('link').count()).toBe(1);
    await page.getByText('There is no such section, or your role does not allow it.').waitFor();
    const plain = await inst.createUser('dora');
    const other = await openPage(browser());
    await signInWithToken(other.page, inst, plain);
    await other.page.goto(`${inst.url}/admin`);
    await other.page.getByText('Your role does not include any staff tasks.').waitFor({ timeout: 15_000 });
    expectCleanPage(page);
    expectCleanPage(other.page);
    await other.context.close();
    await context.close();
  });
});
