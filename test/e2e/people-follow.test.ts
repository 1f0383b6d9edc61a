import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
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

describe('following from profiles', () => {
  const env = useInstance(['alice', 'carol', 'dan']);
  const browser = useChromium();

  it('asks to follow a locked account, which accepts in its own window; lists followers and following', async () => {
    const { inst, users } = env();
    await users.carol.client.request('PATCH', '/api/v1/accounts/update_credentials', { form: { locked: 'true' } });
    const aliceWin = await openPage(browser());
    await signInWithToken(aliceWin.page, inst, users.alice);
    await aliceWin.page.goto(`${inst.url}/@carol`);
    await aliceWin.page.getByText('Locked').waitFor({ timeout: 15_000 });
    await aliceWin.page.getByRole('button', { name: 'Follow', exact: true }).click();
    await aliceWin.page.getByRole('button', { name: 'Requested' }).waitFor({ timeout: 15_000 });
    await expect.poll(async () => (await relationship(users.alice.client, users.carol.accountId)).requested, { timeout: 15_000 }).toBe(true);

    const carolWin = await openPage(browser());
    await signInWithToken(carolWin.page, inst, users.carol);
    await users.dan.client.post(`/api/v1/accounts/${users.carol.accountId}/follow`, {});
    await carolWin.page.goto(`${inst.url}/notifications`);
    // One request answered right in its notification, the other on the follow requests screen.
    await carolWin.page.getByRole('link', { name: '2 follow requests' }).waitFor({ timeout: 15_000 });
    await carolWin.page.getByRole('article', { name: 'dan requested to follow you' }).getByRole('button', { name: 'Reject @dan' }).click();
    await expect.poll(async () => (await relationship(users.dan.client, users.carol.accountId)).requested, { timeout: 15_000 }).toBe(false);
    expect((await relationship(users.dan.client, users.carol.accountId)).following).toBe(false);
    await carolWin.page.getByRole('link', { name: '1 follow request' }).click();
    await carolWin.page.getByRole('button', { name: 'Accept @alice' }).click();
    await carolWin.page.getByText('No one is waiting for an answer.').waitFor({ timeout: 15_000 });
    await expect.poll(async () => (await relationship(users.alice.client, users.carol.accountId)).following, { timeout: 15_000 }).toBe(true);

    await carolWin.page.goto(`${inst.url}/@carol?tab=followers`);
    await carolWin.page.getByRole('list', { name: 'Followers' }).getByRole('link', { name: /@alice/ }).waitFor({ timeout: 15_000 });
    await aliceWin.page.goto(`${inst.url}/@alice?tab=following`);
    await aliceWin.page.getByRole('link', { name: 'Edit profile' }).waitFor({ timeout: 15_000 });
    await aliceWin.page.getByRole('list', { name: 'Following' }).getByRole('link', { name: /@carol/ }).waitFor({ timeout: 15_000 });
    expectCleanPage(aliceWin.page);
    expectCleanPage(carolWin.page);
    await aliceWin.context.close();
    await carolWin.context.close();
  }, 60_000);

  it('puts a follow back and says why when the instance refuses it, with a retry', async () => {
    const { inst, users } = env();
    const dan = users.dan;
    await dan.client.post(`/api/v1/accounts/${users.alice.accountId}/block`, {});
    const { context, page } = await openPage(browser());
    await signInWithToken(page, inst, users.alice);
    await page.goto(`${inst.url}/@dan`);
    await page.getByRole('button', { name: 'Follow', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'not allowed' });
    await alert.waitFor({ timeout: 15_000 });
    await alert.getByRole('button', { name: 'Retry' }).waitFor();
    await page.getByRole('button', { name: 'Follow', exact: true }).waitFor({ timeout: 15_000 });
    expect(await relationship(users.alice.client, dan.accountId)).toMatchObject({ following: false, requested: false });
    expectCleanPage(page);
    await context.close();
  }, 60_000);
});
