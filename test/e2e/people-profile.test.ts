import { describe, expect, it } from 'vitest';
import { addRule } from '../../api/core/instance/rules.js';
import { postStatus, seedRemoteAccount, useInstance } from '../helpers/fixtures.js';
import type { TestClient } from '../helpers/client.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';

/** A Relationship entity as the API sends it (the fields these tests look at). */
interface Relationship {
  following: boolean;
  requested: boolean;
  notifying: boolean;
  showing_reblogs: boolean;
  muting_notifications: boolean;
  blocking: boolean;
  domain_blocking: boolean;
  note: string;
}

/** The relationship of the client's user with `id`, from the API. */
async function relationship(client: TestClient, id: string): Promise<Relationship> {
  const [rel] = (await client.get<Relationship[]>(`/api/v1/accounts/relationships?id[]=${id}`)).body;
  if (!rel) throw new Error(`no relationship with ${id}`);
  return rel;
}

describe('profiles', () => {
  const env = useInstance(['alice', 'bob']);
  const browser = useChromium();

  it('shows a profile and follows, notifies, hides boosts, notes, features, lists, mutes with a duration, blocks and unfollows', async () => {
    const { inst, users } = env();
    const alice = users.alice.client;
    const bobId = users.bob.accountId;
    await users.bob.client.request('PATCH', '/api/v1/accounts/update_credentials', { form: { display_name: 'Bob Builder', note: 'I build <b>things</b>', 'fields_attributes[0][name]': 'Site', 'fields_attributes[0][value]': 'plain text' } });
    await postStatus(users.bob.client, { status: 'Bob’s first post' });
    const list = (await alice.post('/api/v1/lists', { title: 'Builders' })).body;
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/@bob`);
    await page.getByRole('heading', { level: 1, name: 'Bob Builder' }).waitFor({ timeout: 15_000 });
    await page.getByText('Site').waitFor();
    await page.getByRole('feed', { name: 'Posts' }).getByRole('article').filter({ hasText: 'Bob’s first post' }).waitFor({ timeout: 15_000 });

    await page.getByRole('button', { name: 'Follow', exact: true }).click();
    await page.getByRole('button', { name: 'Unfollow' }).waitFor({ timeout: 15_000 });
    await expect.poll(async () => (await relationship(alice, bobId)).following, { timeout: 15_000 }).toBe(true);

    await page.getByRole('button', { name: 'Notify on new posts' }).click();
    await expect.poll(async () => (await relationship(alice, bobId)).notifying, { timeout: 15_000 }).toBe(true);
    expect(await page.getByRole('button', { name: 'Notify on new posts' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByRole('button', { name: 'Hide boosts' }).click();
    await expect.poll(async () => (await relationship(alice, bobId)).showing_reblogs, { timeout: 15_000 }).toBe(false);

    await page.getByLabel('Personal note').fill('Met at the fair');
    await page.getByLabel('Personal note').blur();
    await expect.poll(async () => (await relationship(alice, bobId)).note, { timeout: 15_000 }).toBe('Met at the fair');

    await page.getByRole('button', { name: 'Feature on your profile' }).click();
    await expect.poll(async () => (await alice.get('/api/v1/endorsements')).body.map((a: { id: string }) => a.id), { timeout: 15_000 }).toEqual([bobId]);

    await page.getByRole('button', { name: 'Add to list' }).click();
    const listsDialog = page.getByRole('dialog', { name: 'Lists with @bob' });
    await listsDialog.getByRole('checkbox', { name: 'Builders' }).check();
    await expect.poll(async () => (await alice.get(`/api/v1/lists/${list.id}/accounts`)).body.map((a: { id: string }) => a.id), { timeout: 15_000 }).toEqual([bobId]);
    await listsDialog.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('button', { name: 'Mute', exact: true }).click();
    const muteDialog = page.getByRole('dialog', { name: 'Mute @bob' });
    await muteDialog.getByLabel('Duration').selectOption({ label: '1 hour' });
    await muteDialog.getByRole('button', { name: 'Mute' }).click();
    await page.getByRole('button', { name: 'Unmute' }).waitFor({ timeout: 15_000 });
    await expect.poll(async () => (await alice.get('/api/v1/mutes')).body, { timeout: 15_000 }).toHaveLength(1);
    const [muted] = (await alice.get('/api/v1/mutes')).body;
    const expires = Date.parse(muted.mute_expires_at) - Date.now();
    expect(expires).toBeGreaterThan(50 * 60_000);
    expect(expires).toBeLessThan(61 * 60_000);
    expect((await relationship(alice, bobId)).muting_notifications).toBe(true);

    await page.getByRole('button', { name: 'Unfollow' }).click();
    await page.getByRole('button', { name: 'Follow', exact: true }).waitFor({ timeout: 15_000 });
    await expect.poll(async () => (await relationship(alice, bobId)).following, { timeout: 15_000 }).toBe(false);

    await page.getByRole('button', { name: 'Block', exact: true }).click();
    await expect.poll(async () => (await relationship(alice, bobId)).blocking, { timeout: 15_000 }).toBe(true);
    await page.getByRole('button', { name: 'Unblock' }).first().click();
    await expect.poll(async () => (await relationship(alice, bobId)).blocking, { timeout: 15_000 }).toBe(false);
    expectCleanPage(page);
    await context.close();
  }, 60_000);

  it('reports an account with the rules it breaks and its posts; blocks a remote domain', async () => {
    const { inst, users } = env();
    const rule = addRule(inst.deps, { text: 'Be kind to each other' });
    addRule(inst.deps, { text: 'No advertising' });
    const mean = await postStatus(users.bob.client, { status: 'A mean post' });
    await postStatus(users.bob.client, { status: 'A nice post' });
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/@bob?report=${mean.id}`);
    const dialog = page.getByRole('dialog', { name: 'Report @bob' });
    await dialog.getByRole('checkbox', { name: /A mean post/ }).waitFor({ timeout: 15_000 });
    expect(await dialog.getByRole('checkbox', { name: /A mean post/ }).isChecked()).toBe(true);
    expect(await dialog.getByRole('checkbox', { name: /A nice post/ }).isChecked()).toBe(false);
    await dialog.getByRole('radio', { name: 'It breaks the rules of this server' }).check();
    await dialog.getByRole('checkbox', { name: 'Be kind to each other' }).check();
    await dialog.getByLabel('Comment for the moderators').fill('Not nice at all');
    await dialog.getByRole('button', { name: 'Send report' }).click();
    await page.getByText('The report was sent to the moderators.').waitFor({ timeout: 15_000 });
    // The dialog is closed for good: the address no longer asks for it.
    await page.waitForURL((u) => u.pathname === '/@bob' && !u.search.includes('report'), { timeout: 15_000 });
    const admin = (await inst.createUser('moderator', { role: 'admin', scopes: 'admin:read' })).client;
    const reports = (await admin.get('/api/v1/admin/reports')).body;
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ category: 'violation', comment: 'Not nice at all', rules: [{ id: rule.id }] });
    expect(reports[0].statuses.map((s: { id: string }) => s.id)).toEqual([mean.id]);
    expect(reports[0].target_account.account.id).toBe(users.bob.accountId);

    const remoteId = seedRemoteAccount(inst, 'faraway', 'remote.example');
    await page.goto(`${inst.url}/@faraway@remote.example`);
    await page.getByRole('button', { name: 'Block domain remote.example' }).click();
    await expect.poll(async () => (await users.alice.client.get('/api/v1/domain_blocks')).body, { timeout: 15_000 }).toEqual(['remote.example']);
    expect((await relationship(users.alice.client, remoteId)).domain_blocking).toBe(true);
    expectCleanPage(page);
    await context.close();
  }, 60_000);

});
