import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { clear, follow, linkPath, notificationsOf, post } from './helpers.js';

/** The grouped-notification methods by group key: paging the accounts, 404 for a key the user does not have, and v2 clear. */
describe('notification groups by key', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  const fans: TestUser[] = [];

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    for (let i = 0; i < 5; i++) fans.push(await inst.createUser(`fan${i}`));
  });
  afterAll(async () => {
    await inst.close();
  });

  it('pages the accounts of a group with Link headers, newest first', async () => {
    for (const fan of fans) await follow(fan, alice);
    const group = (await alice.client.get('/api/v2/notifications')).body.notification_groups[0];
    expect(group).toMatchObject({ type: 'follow', notifications_count: 5 });
    const newestFirst = [...fans].reverse().map((f) => f.accountId);

    const all = await alice.client.get(`/api/v2/notifications/${group.group_key}/accounts`);
    expect(all.status).toBe(200);
    expect(all.body.map((a: any) => a.id)).toEqual(newestFirst);

    const first = await alice.client.get(`/api/v2/notifications/${group.group_key}/accounts?limit=2`);
    expect(first.body.map((a: any) => a.id)).toEqual(newestFirst.slice(0, 2));
    const second = await alice.client.get(linkPath(first.headers.get('link'), 'next'));
    expect(second.status).toBe(200);
    expect(second.body.map((a: any) => a.id)).toEqual(newestFirst.slice(2, 4));
    const third = await alice.client.get(linkPath(second.headers.get('link'), 'next'));
    expect(third.body.map((a: any) => a.id)).toEqual(newestFirst.slice(4));
    const back = await alice.client.get(linkPath(third.headers.get('link'), 'prev'));
    expect(back.body.map((a: any) => a.id)).toEqual(newestFirst.slice(2, 4));
    // The cursors are notification ids, as Mastodon pages this list.
    const notes = await notificationsOf(alice, 'types[]=follow');
    expect(linkPath(first.headers.get('link'), 'next')).toContain(`max_id=${notes[1].id}`);
    // A limit beyond the maximum is capped, not refused.
    expect((await alice.client.get(`/api/v2/notifications/${group.group_key}/accounts?limit=1000`)).body).toHaveLength(5);

    // An ungrouped notification's key names that notification alone.
    await post(bob, '@alice hello');
    const mention = (await notificationsOf(alice))[0];
    const single = await alice.client.get(`/api/v2/notifications/ungrouped-${mention.id}/accounts`);
    expect(single.body.map((a: any) => a.id)).toEqual([bob.accountId]);
    expect((await alice.client.get(`/api/v2/notifications/ungrouped-${mention.id}/accounts?max_id=${mention.id}`)).body).toEqual([]);
  });

  it('answers 404 for a group key the user does not have, on every grouped method', async () => {
    // Another user's group: bob favourites fan0's status (follow keys name only an hour, which alice shares).
    const fan0 = fans[0] as TestUser;
    const liked = await post(fan0, 'like this');
    expect((await bob.client.post(`/api/v1/statuses/${liked.id}/favourite`)).status).toBe(200);
    const bobs = (await fan0.client.get('/api/v2/notifications')).body.notification_groups[0];
    expect(bobs.group_key).toMatch(/^favourite-/);
    const mention = (await notificationsOf(alice, 'types[]=mention'))[0];
    const keys = ['favourite-123-456', 'follow-1', 'ungrouped-1', 'ungrouped-abc', 'nonsense', bobs.group_key, `ungrouped-${mention.id}0`];
    for (const key of keys) {
      for (const [method, path] of [
        ['GET', `/api/v2/notifications/${key}`],
        ['GET', `/api/v2/notifications/${key}/accounts`],
        ['POST', `/api/v2/notifications/${key}/dismiss`],
      ] as const) {
        const res = await alice.client.request(method, path);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body).toEqual({ error: 'Record not found' });
      }
    }
    // Nothing was dismissed on the way: fan0 still has bob's favourite.
    expect((await fan0.client.get(`/api/v2/notifications/${bobs.group_key}`)).status).toBe(200);
    // A key alice has is dismissed, and then it is one she does not have.
    const follows = (await alice.client.get('/api/v2/notifications?types[]=follow')).body.notification_groups[0];
    expect((await alice.client.post(`/api/v2/notifications/${follows.group_key}/dismiss`)).status).toBe(200);
    expect((await alice.client.post(`/api/v2/notifications/${follows.group_key}/dismiss`)).status).toBe(404);
    expect((await alice.client.post(`/api/v2/notifications/ungrouped-${mention.id}/dismiss`)).status).toBe(200);
    expect((await alice.client.get(`/api/v2/notifications/ungrouped-${mention.id}`)).status).toBe(404);
  });

  it('clears every notification through v2 as through v1', async () => {
    await post(bob, '@alice one');
    await post(bob, '@alice two', { visibility: 'direct' });
    expect(await notificationsOf(alice, 'include_filtered=true')).toHaveLength(2);
    const res = await alice.client.post('/api/v2/notifications/clear');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await notificationsOf(alice, 'include_filtered=true')).toEqual([]);
    expect((await alice.client.get('/api/v1/notifications/requests')).body).toEqual([]);
    // Bob's notifications are his own.
    await follow(alice, bob);
    await alice.client.post('/api/v2/notifications/clear');
    expect((await notificationsOf(bob)).map((x) => x.type)).toEqual(['follow']);
    await clear(bob);
  });

  it('checks tokens and scopes', async () => {
    await follow(fans[1] as TestUser, bob);
    const key = (await bob.client.get('/api/v2/notifications')).body.notification_groups[0].group_key;
    expect((await inst.anon.post('/api/v2/notifications/clear')).status).toBe(401);
    expect((await bob.client.post('/api/v2/notifications/clear', undefined, { token: inst.tokenFor(bob, 'read:notifications') })).status).toBe(403);
    expect((await bob.client.get(`/api/v2/notifications/${key}/accounts`, { token: inst.tokenFor(bob, 'write:statuses') })).status).toBe(403);
    expect((await bob.client.get(`/api/v2/notifications/${key}/accounts`, { token: inst.tokenFor(bob, 'read:notifications') })).status).toBe(200);
    expect((await bob.client.post('/api/v2/notifications/clear', undefined, { token: inst.tokenFor(bob, 'write:notifications') })).status).toBe(200);
    expect(await notificationsOf(bob)).toEqual([]);
  });
});
