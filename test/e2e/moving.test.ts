import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../helpers/instance.js';
import { eventually, startFederated } from '../federation/helpers.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;

/**
 * Moving house in the app, between two real instances federating on loopback: alice exports her
 * follows on A, bob imports the file on B (with a row naming an account that does not exist), bob
 * names alice as an alias, and alice moves to bob.
 */
describe('moving house: export, import with progress and failures, alias and move', () => {
  let a: Inst;
  let b: Inst;
  let alice: TestUser;
  let carol: TestUser;
  let bob: TestUser;
  const browser = useChromium();

  beforeAll(async () => {
    [a, b] = await Promise.all([startFederated('127.0.0.2'), startFederated('127.0.0.3')]);
    alice = await a.createUser('alice');
    carol = await a.createUser('carol');
    bob = await b.createUser('bob');
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('exports the follows on A and imports them on B, with progress to 100% and the row that failed', { timeout: 90_000 }, async () => {
    expect((await alice.client.post(`/api/v1/accounts/${carol.accountId}/follow`)).status).toBe(200);
    const onA = await openPage(browser());
    await signInWithToken(onA.page, a, alice);
    await onA.page.goto(`${a.url}/settings/export`);
    await onA.page.getByRole('button', { name: 'Prepare following_accounts.csv' }).click();
    const link = onA.page.getByRole('link', { name: 'Download following_accounts.csv' });
    await link.waitFor({ timeout: 15_000 });
    const [download] = await Promise.all([onA.page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('following_accounts.csv');
    const csv = await readFile(await download.path(), 'utf8');
    expect(csv).toBe(`Account address,Show boosts,Notify on new posts,Languages\ncarol@${a.domain},true,false,\n`);
    expectCleanPage(onA.page);
    await onA.context.close();

    // The file names one more account, which A does not have.
    const file = `${csv}nobody@${a.domain},true,false,\n`;
    const onB = await openPage(browser());
    await signInWithToken(onB.page, b, bob);
    await onB.page.goto(`${b.url}/settings/import`);
    await onB.page.getByLabel('Kind of file').selectOption('following');
    await onB.page.getByRole('radio', { name: /Merge/ }).check();
    await onB.page.getByLabel('CSV file').setInputFiles({ name: 'following_accounts.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
    await onB.page.getByRole('button', { name: 'Start import' }).click();
    const progress = onB.page.getByRole('progressbar', { name: 'Import progress' });
    await progress.waitFor({ timeout: 15_000 });
    await onB.page.getByRole('status').filter({ hasText: 'Finished: 2 of 2 rows (100%), 1 imported, 1 failed.' }).waitFor({ timeout: 30_000 });
    expect(await progress.getAttribute('value')).toBe('100');
    const failed = onB.page.getByRole('table', { name: 'Rows that could not be imported' }).getByRole('row').filter({ hasText: `nobody@${a.domain}` });
    await failed.waitFor({ timeout: 15_000 });
    expect(await failed.textContent()).toContain('3');

    const [job] = (await bob.client.get('/api/hearth/imports')).body;
    expect(job).toMatchObject({ type: 'following', mode: 'merge', state: 'finished', total: 2, processed: 2, imported: 1, failed: 1 });
    const found = (await bob.client.get(`/api/v2/search?q=${encodeURIComponent(`carol@${a.domain}`)}&resolve=true&type=accounts`)).body.accounts[0];
    // The follow was asked for (carol accepts it over federation soon after).
    const relationship = await eventually(async () => (await bob.client.get(`/api/v1/accounts/relationships?id[]=${found.id}`)).body[0], 15_000);
    expect(relationship.following || relationship.requested).toBe(true);
    expectCleanPage(onB.page);
    await onB.context.close();
  });

  it('adds an alias on B, then moves alice from A to bob on B with her password', { timeout: 90_000 }, async () => {
    const onB = await openPage(browser());
    await signInWithToken(onB.page, b, bob);
    await onB.page.goto(`${b.url}/settings/moving`);
    await onB.page.getByLabel('Old account’s address').fill(`alice@${a.domain}`);
    await onB.page.getByRole('button', { name: 'Add alias' }).click();
    await onB.page.getByRole('list', { name: 'Aliases' }).getByText(`${a.origin}/users/alice`).waitFor({ timeout: 15_000 });
    expect((await bob.client.get('/api/pleroma/aliases')).body.aliases).toEqual([`${a.origin}/users/alice`]);
    expectCleanPage(onB.page);
    await onB.context.close();

    const onA = await openPage(browser());
    await signInWithToken(onA.page, a, alice);
    await onA.page.goto(`${a.url}/settings/moving`);
    await onA.page.getByLabel('New account’s address').fill(`bob@${b.domain}`);
    await onA.page.getByLabel('Your password').fill('wrong password');
    await onA.page.getByRole('button', { name: 'Move account' }).click();
    await onA.page.getByRole('dialog', { name: 'Move this account?' }).getByRole('button', { name: 'Move', exact: true }).click();
    await onA.page.getByRole('alert').waitFor({ timeout: 15_000 });
    expect((await a.anon.get(`/api/v1/accounts/${alice.accountId}`)).body.moved ?? null).toBeNull();
    await onA.page.getByLabel('Your password').fill(alice.password);
    await onA.page.getByRole('button', { name: 'Move account' }).click();
    await onA.page.getByRole('dialog', { name: 'Move this account?' }).getByRole('button', { name: 'Move', exact: true }).click();
    await onA.page.getByText(`This account has moved to bob@${b.domain}.`).waitFor({ timeout: 15_000 });
    expect((await a.anon.get(`/api/v1/accounts/${alice.accountId}`)).body.moved?.acct).toBe(`bob@${b.domain}`);
    // The refused attempt logged its failed request; nothing else went wrong on the page.
    expectCleanPage(onA.page);
    await onA.context.close();
  });
});
