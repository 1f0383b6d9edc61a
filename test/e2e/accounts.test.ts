import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { addRule } from '../../api/core/instance/rules.js';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import { expectCleanPage, openPage, signInThroughUi, signInWithToken, useChromium } from '../helpers/chromium.js';
import type { TestInstance, TestUser } from '../helpers/instance.js';

/*
 * Accounts in the app: signing up (open registrations, and with approval), two family accounts
 * signed in on one device and switching between them, and signing out (the token is revoked).
 */

const browser = useChromium();

interface Stored {
  id: string;
  acct: string;
  accessToken: string;
}

/** The accounts the app keeps on this device, and the active one's token. */
async function storedSession(page: Page): Promise<{ accounts: Stored[]; active: Stored | undefined }> {
  return page.evaluate(() => {
    const accounts = JSON.parse(localStorage.getItem('hearth.accounts') ?? '[]') as Stored[];
    const id = localStorage.getItem('hearth.active');
    return { accounts, active: accounts.find((a) => a.id === id) };
  });
}

/** `verify_credentials` with a token: who it acts as (or the HTTP status when refused). */
async function whoIs(inst: TestInstance, token: string | undefined): Promise<string | number> {
  const res = await fetch(`${inst.url}/api/v1/accounts/verify_credentials`, { headers: { Authorization: `Bearer ${token ?? ''}` } });
  if (!res.ok) return res.status;
  return ((await res.json()) as { username: string }).username;
}

/** Fills the sign-up form's text fields. */
async function fillSignUp(page: Page, username: string, extra: { reason?: string } = {}): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('E-mail address').fill(`${username}@example.test`);
  await page.getByLabel('Password', { exact: true }).fill('a-long-password-123');
  await page.getByLabel('Confirm password').fill('a-long-password-123');
  if (extra.reason !== undefined) await page.getByLabel('Why do you want to join?').fill(extra.reason);
}

describe('an instance with open registrations', { timeout: 60_000 }, () => {
  const env = useInstance(['alice', 'bob']);
  // An instance that takes sign-ups has been set up: it has an owner.
  beforeAll(async () => void (await env().inst.createUser('kim', { role: 'owner' })));

  it('signs up in the app: the instance rules, its messages at the fields, then signed in as the new account', async () => {
    const { inst } = env();
    addRule(inst.deps, { text: 'Be kind to each other' });
    const { context, page } = await openPage(browser());
    page.setDefaultTimeout(15_000);
    await page.goto(`${inst.url}/`);
    await page.getByRole('button', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.getByRole('list', { name: 'Rules of this instance' }).getByText('Be kind to each other').waitFor();

    // A taken username and address and no agreement: the instance refuses, and says why at each field.
    await fillSignUp(page, 'alice');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Username has already been taken').waitFor();
    await page.getByText('E-mail address has already been taken').waitFor();
    await page.getByText('Please agree to the rules to create an account.').waitFor();
    expect(await page.getByLabel('Username').getAttribute('aria-invalid')).toBe('true');
    expect((await inst.anon.get('/api/v1/accounts/lookup?acct=carol')).status).toBe(404);

    await page.getByLabel('Username').fill('carol');
    await page.getByLabel('E-mail address').fill('carol@example.test');
    await page.getByLabel('I agree to the rules of this instance').check();
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();

    // The app holds a working token of the new account, issued to the app.
    const { active } = await storedSession(page);
    expect(active?.acct).toBe('carol');
    expect(await whoIs(inst, active?.accessToken)).toBe('carol');
    const app = await fetch(`${inst.url}/api/v1/apps/verify_credentials`, { headers: { Authorization: `Bearer ${active?.accessToken}` } });
    expect(((await app.json()) as { name: string }).name).toBe('Hearth');
    expect((await inst.anon.get('/api/v1/accounts/lookup?acct=carol')).status).toBe(200);
    expectCleanPage(page);
    await context.close();
  });

  it('keeps two family accounts signed in, switches between them, and signing out revokes only the active one', async () => {
    const { inst, users } = env();
    await postStatus(users.alice.client, { status: 'Breakfast is ready, says alice' });
    await postStatus(users.bob.client, { status: 'Walking the dog, says bob' });
    const { context, page } = await openPage(browser());
    page.setDefaultTimeout(15_000);
    await signInThroughUi(page, inst, users.alice);
    const feed = page.getByRole('feed', { name: 'Home' });
    await feed.getByRole('article').filter({ hasText: 'Breakfast is ready' }).waitFor();

    // Adding bob asks for the sign-in form again, although alice's browser session exists.
    await page.getByRole('button', { name: /account menu/ }).click();
    await page.getByRole('button', { name: 'Add another account' }).click();
    await page.getByLabel('Username or e-mail address').fill(users.bob.username);
    await page.getByLabel('Password').fill(users.bob.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Authorize' }).click();
    await feed.getByRole('article').filter({ hasText: 'Walking the dog' }).waitFor();
    expect(await feed.getByRole('article').filter({ hasText: 'Breakfast is ready' }).count()).toBe(0);
    let session = await storedSession(page);
    expect(session.accounts.map((a) => a.acct).sort()).toEqual(['alice', 'bob']);
    expect(await whoIs(inst, session.active?.accessToken)).toBe('bob');

    // Back to alice: her home timeline, her token.
    await page.getByRole('button', { name: /account menu/ }).click();
    await page.getByRole('button', { name: 'Switch to @alice' }).click();
    await feed.getByRole('article').filter({ hasText: 'Breakfast is ready' }).waitFor();
    expect(await feed.getByRole('article').filter({ hasText: 'Walking the dog' }).count()).toBe(0);
    session = await storedSession(page);
    expect(await whoIs(inst, session.active?.accessToken)).toBe('alice');
    const aliceToken = session.active?.accessToken;
    const bobToken = session.accounts.find((a) => a.acct === 'bob')?.accessToken;

    // The menu closes on Escape, and focus goes back to its button.
    const menuButton = page.getByRole('button', { name: /account menu/ });
    await menuButton.click();
    await page.getByRole('button', { name: 'Switch to @bob' }).waitFor();
    await page.keyboard.press('Escape');
    expect(await page.getByRole('button', { name: 'Switch to @bob' }).count()).toBe(0);
    expect(await menuButton.evaluate((el) => el.matches(':focus'))).toBe(true);

    // Signing alice out revokes her token; bob stays signed in and becomes the active account.
    await menuButton.click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await feed.getByRole('article').filter({ hasText: 'Walking the dog' }).waitFor();
    expect(await whoIs(inst, aliceToken)).toBe(401);
    expect(await whoIs(inst, bobToken)).toBe('bob');
    session = await storedSession(page);
    expect(session.accounts.map((a) => a.acct)).toEqual(['bob']);
    expectCleanPage(page);
    await context.close();
  });

  it('tells someone who is not the owner that the connection is the owner\'s business', async () => {
    const { inst, users } = env();
    const { context, page } = await openPage(browser());
    page.setDefaultTimeout(15_000);
    await signInWithToken(page, inst, users.bob);
    await page.goto(`${inst.url}/`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Connection' }).click();
    await page.getByRole('heading', { name: 'Connection', level: 1 }).waitFor();
    await page.getByText('Only the owner of this instance can see and change how it is connected.').waitFor();
    expect((await users.bob.client.get('/api/hearth/relay')).status).toBe(403);
    expectCleanPage(page);
    await context.close();
  });
});

describe('an instance that approves sign-ups', { timeout: 60_000 }, () => {
  const env = useInstance([], { registrations: 'approval' });
  let owner: TestUser;
  beforeAll(async () => {
    owner = await env().inst.createUser('kim', { role: 'owner', scopes: 'admin:read' });
  });

  it('signs up with a reason, says the account waits for approval, and the account is pending for the staff', async () => {
    const { inst } = env();
    const { context, page } = await openPage(browser());
    page.setDefaultTimeout(15_000);
    await page.goto(`${inst.url}/`);
    await page.getByRole('button', { name: 'Create an account' }).click();
    await page.getByText('Sign-ups on this instance are approved by the people who run it.').waitFor();
    await fillSignUp(page, 'dave', { reason: 'I am the cousin from Lyon' });
    await page.getByLabel('I agree to the rules of this instance').check();
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Waiting for approval' }).waitFor();
    await page.getByText(/is waiting for approval/).waitFor();

    // Not signed in on this device; the staff see the account pending, with its reason.
    expect((await storedSession(page)).accounts).toEqual([]);
    const pending = await owner.client.get('/api/v1/admin/accounts?pending=true');
    expect(pending.status).toBe(200);
    const dave = (pending.body as { username: string; approved: boolean; invite_request: string | null }[]).find((a) => a.username === 'dave');
    expect(dave).toMatchObject({ approved: false, invite_request: 'I am the cousin from Lyon' });

    await page.getByRole('button', { name: 'Back' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expectCleanPage(page);
    await context.close();
  });
});
