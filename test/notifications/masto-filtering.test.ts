import { createRestAPIClient, type mastodon } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { post } from './helpers.js';

/** The masto client drives the policy and the requests as a client app would. */
describe('filtered notifications with the masto client', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let asAlice: mastodon.rest.Client;
  const strangers: TestUser[] = [];

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    for (const name of ['bob', 'carol', 'dave', 'erin']) strangers.push(await inst.createUser(name));
    asAlice = createRestAPIClient({ url: inst.url, accessToken: alice.token });
  });
  afterAll(async () => {
    await inst.close();
  });

  const stranger = (i: number): TestUser => {
    const u = strangers[i];
    if (!u) throw new Error(`no stranger ${i}`);
    return u;
  };

  it('reads and changes the policy', async () => {
    const policy = await asAlice.v2.notifications.policy.fetch();
    expect(policy).toEqual({
      forNotFollowing: 'accept',
      forNotFollowers: 'accept',
      forNewAccounts: 'accept',
      forPrivateMentions: 'filter',
      forLimitedAccounts: 'filter',
      summary: { pendingRequestsCount: 0, pendingNotificationsCount: 0 },
    });
    const updated = await asAlice.v2.notifications.policy.update({ forNotFollowing: 'filter', forNewAccounts: 'drop' });
    expect(updated).toMatchObject({ forNotFollowing: 'filter', forNewAccounts: 'drop', forPrivateMentions: 'filter' });
    await expect(asAlice.v2.notifications.policy.update({ forNotFollowers: 'never' as 'drop' })).rejects.toThrow(/not included in the list/);
    const back = await asAlice.v2.notifications.policy.update({ forNotFollowing: 'accept', forNewAccounts: 'accept' });
    expect(back).toMatchObject({ forNotFollowing: 'accept', forNewAccounts: 'accept', forNotFollowers: 'accept' });
  });

  it('lists, opens, accepts and dismisses requests, one and several at a time', async () => {
    const secrets = [];
    for (let i = 0; i < 4; i++) secrets.push(await post(stranger(i), `@alice secret ${i}`, { visibility: 'direct' }));
    expect((await asAlice.v2.notifications.policy.fetch()).summary).toEqual({ pendingRequestsCount: 4, pendingNotificationsCount: 4 });

    const requests = await asAlice.v1.notifications.requests.list({ limit: 2 });
    expect(requests.map((r) => r.account.username)).toEqual(['erin', 'dave']);
    const rest = await asAlice.v1.notifications.requests.list({ maxId: requests[1]?.id });
    expect(rest.map((r) => r.account.username)).toEqual(['carol', 'bob']);
    const all = [...requests, ...rest];
    const byName = (name: string) => all.find((r) => r.account.username === name)?.id ?? '';

    const one = await asAlice.v1.notifications.requests.$select(byName('bob')).fetch();
    expect(one).toMatchObject({ notificationsCount: '1', account: { username: 'bob' }, lastStatus: { id: secrets[0]?.id } });
    // What a client shows for a request: that account's notifications, filtered ones included.
    const bobs = await asAlice.v1.notifications.list({ accountId: stranger(0).accountId });
    expect(bobs.map((n) => n.status?.id)).toEqual([secrets[0]?.id]);

    await asAlice.v1.notifications.requests.$select(byName('bob')).accept();
    expect(await asAlice.v1.notifications.requests.merged.fetch()).toEqual({ merged: true });
    expect((await asAlice.v1.notifications.list()).map((n) => n.account.username)).toEqual(['bob']);
    await asAlice.v1.notifications.requests.$select(byName('carol')).dismiss();
    // masto 8 types the bulk methods without their `id[]` parameter, but sends what it is given.
    type Bulk = (params: { id: string[] }) => Promise<void>;
    await (asAlice.v1.notifications.requests.accept as unknown as Bulk)({ id: [byName('dave')] });
    await (asAlice.v1.notifications.requests.dismiss as unknown as Bulk)({ id: [byName('erin')] });
    expect(await asAlice.v1.notifications.requests.list()).toEqual([]);
    expect((await asAlice.v1.notifications.list()).map((n) => n.account.username)).toEqual(['dave', 'bob']);
    const grouped = await asAlice.v2.notifications.list({ includeFiltered: true });
    expect(grouped.notificationGroups).toHaveLength(2);
    await expect(asAlice.v1.notifications.requests.$select(byName('carol')).fetch()).rejects.toThrow(/Record not found/);
    expect((await asAlice.v2.notifications.policy.fetch()).summary).toEqual({ pendingRequestsCount: 0, pendingNotificationsCount: 0 });
  });
});
