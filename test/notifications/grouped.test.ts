import { createRestAPIClient } from 'masto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { now, resetClock, setClockTo } from '../../api/util/clock.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { clear, follow, linkPath, notificationsOf, post } from './helpers.js';

describe('notifications v2: grouped as Mastodon groups them', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let fans: TestUser[];

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    fans = [];
    for (const name of ['bob', 'carol', 'dave', 'erin']) fans.push(await inst.createUser(name));
  });
  afterEach(async () => {
    resetClock();
    for (const f of fans) await f.client.post(`/api/v1/accounts/${alice.accountId}/unfollow`);
    await clear(alice);
  });
  afterAll(async () => {
    await inst.close();
  });

  const fan = (i: number): TestUser => {
    const u = fans[i];
    if (!u) throw new Error(`no fan ${i}`);
    return u;
  };
  const grouped = async (query = '') => {
    const res = await alice.client.get(`/api/v2/notifications${query ? `?${query}` : ''}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res;
  };

  it('groups favourites of one status and follows; mentions stay one group each', async () => {
    const status = await post(alice, 'popular');
    const other = await post(alice, 'less popular');
    for (let i = 0; i < 3; i++) await fan(i).client.post(`/api/v1/statuses/${status.id}/favourite`);
    await fan(3).client.post(`/api/v1/statuses/${other.id}/favourite`);
    await follow(fan(0), alice);
    await follow(fan(1), alice);
    await post(fan(2), '@alice one');
    await post(fan(3), '@alice two');

    const v1 = await notificationsOf(alice);
    expect(v1).toHaveLength(8);
    const { body } = await grouped();
    const groups = body.notification_groups;
    expect(groups.map((g: any) => [g.type, g.notifications_count])).toEqual([
      ['mention', 1],
      ['mention', 1],
      ['follow', 2],
      ['favourite', 1],
      ['favourite', 3],
    ]);
    const favGroup = groups[4];
    expect(favGroup).toEqual({
      group_key: expect.stringMatching(new RegExp(`^favourite-${status.id}-\\d+$`)),
      notifications_count: 3,
      type: 'favourite',
      most_recent_notification_id: v1.find((n) => n.type === 'favourite' && n.status.id === status.id).id,
      page_min_id: v1.filter((n) => n.type === 'favourite' && n.status.id === status.id).at(-1).id,
      page_max_id: v1.find((n) => n.type === 'favourite' && n.status.id === status.id).id,
      latest_page_notification_at: expect.any(String),
      sample_account_ids: [fan(2).accountId, fan(1).accountId, fan(0).accountId],
      status_id: status.id,
    });
    expect(groups[0].group_key).toBe(`ungrouped-${v1[0].id}`);
    expect(groups[0].sample_account_ids).toEqual([fan(3).accountId]);
    expect(groups[2].sample_account_ids).toEqual([fan(1).accountId, fan(0).accountId]);
    expect(groups[2].status_id).toBeUndefined();
    // The envelope: every account named, every status once.
    expect(body.accounts.map((a: any) => a.id).sort()).toEqual(fans.map((f) => f.accountId).sort());
    expect(body.statuses.map((s: any) => s.id).sort()).toEqual([status.id, other.id, v1[0].status.id, v1[1].status.id].sort());
    expect(body.partial_accounts).toBeUndefined();
    // v1 carries the same group keys.
    expect(new Set(v1.map((n) => n.group_key)).size).toBe(5);
  });

  it('honours grouped_types[], types[], exclude_types[] and account_id', async () => {
    const status = await post(alice, 'popular');
    for (let i = 0; i < 2; i++) await fan(i).client.post(`/api/v1/statuses/${status.id}/favourite`);
    await follow(fan(2), alice);
    const v1 = await notificationsOf(alice);

    const ungrouped = (await grouped('grouped_types[]=follow')).body.notification_groups;
    expect(ungrouped.map((g: any) => [g.type, g.group_key, g.notifications_count])).toEqual([
      ['follow', expect.stringMatching(/^follow-/), 1],
      ['favourite', `ungrouped-${v1[1].id}`, 1],
      ['favourite', `ungrouped-${v1[2].id}`, 1],
    ]);
    expect((await grouped('types[]=favourite')).body.notification_groups.map((g: any) => g.type)).toEqual(['favourite']);
    expect((await grouped('exclude_types[]=favourite')).body.notification_groups.map((g: any) => g.type)).toEqual(['follow']);
    const fromBob = (await grouped(`account_id=${fan(0).accountId}`)).body.notification_groups;
    expect(fromBob.map((g: any) => g.type)).toEqual(['favourite']);
  });

  it('splits a group after Mastodon\'s 12-hour window', async () => {
    const status = await post(alice, 'slow burner');
    await fan(0).client.post(`/api/v1/statuses/${status.id}/favourite`);
    setClockTo(now() + 5 * 3_600_000);
    await fan(1).client.post(`/api/v1/statuses/${status.id}/favourite`);
    setClockTo(now() + 13 * 3_600_000);
    await fan(2).client.post(`/api/v1/statuses/${status.id}/favourite`);
    await follow(fan(0), alice);
    setClockTo(now() + 2 * 3_600_000);
    await follow(fan(1), alice);
    const groups = (await grouped()).body.notification_groups;
    expect(groups.map((g: any) => [g.type, g.notifications_count])).toEqual([
      ['follow', 2],
      ['favourite', 1],
      ['favourite', 2],
    ]);
    expect(groups[1].group_key).not.toBe(groups[2].group_key);
  });

  it('renders partial accounts with expand_accounts=partial_avatars', async () => {
    const status = await post(alice, 'popular');
    for (let i = 0; i < 3; i++) await fan(i).client.post(`/api/v1/statuses/${status.id}/favourite`);
    const { body } = await grouped('expand_accounts=partial_avatars');
    expect(body.accounts.map((a: any) => a.id)).toEqual([fan(2).accountId]);
    expect(body.partial_accounts.map((a: any) => a.id)).toEqual([fan(1).accountId, fan(0).accountId]);
    expect(Object.keys(body.partial_accounts[0]).sort()).toEqual(['acct', 'avatar', 'avatar_description', 'avatar_static', 'bot', 'id', 'locked', 'url']);
    const bad = await alice.client.get('/api/v2/notifications?expand_accounts=everything');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/expand_accounts/);
  });

  it('pages over notification ids: a group may continue on the next page', async () => {
    const status = await post(alice, 'popular');
    await fan(0).client.post(`/api/v1/statuses/${status.id}/favourite`); // oldest
    await post(fan(1), '@alice m1');
    await fan(2).client.post(`/api/v1/statuses/${status.id}/favourite`);
    await post(fan(3), '@alice m2'); // newest
    const v1 = await notificationsOf(alice);

    const first = await grouped('limit=2');
    expect(first.body.notification_groups.map((g: any) => [g.type, g.notifications_count, g.page_min_id, g.page_max_id])).toEqual([
      ['mention', 1, v1[0].id, v1[0].id],
      ['favourite', 2, v1[1].id, v1[1].id],
    ]);
    const next = linkPath(first.headers.get('link'), 'next');
    expect(next).toContain(`max_id=${v1[1].id}`);
    const second = await alice.client.get(next);
    expect(second.body.notification_groups.map((g: any) => [g.type, g.notifications_count, g.page_min_id, g.page_max_id])).toEqual([
      ['mention', 1, v1[2].id, v1[2].id],
      ['favourite', 1, v1[3].id, v1[3].id],
    ]);
    expect(second.body.notification_groups[1].group_key).toBe(first.body.notification_groups[1].group_key);
    expect(linkPath(second.headers.get('link'), 'prev')).toContain(`min_id=${v1[2].id}`);
    // min_id walks forward from the cursor.
    const newer = await grouped(`min_id=${v1[3].id}&limit=2`);
    expect(newer.body.notification_groups.map((g: any) => g.most_recent_notification_id)).toEqual([v1[1].id, v1[2].id]);
    const none = await grouped(`since_id=${v1[0].id}`);
    expect(none.body).toEqual({ accounts: [], statuses: [], notification_groups: [] });
  });

  it('gets, lists the accounts of, and dismisses one group', async () => {
    const status = await post(alice, 'popular');
    for (let i = 0; i < 3; i++) await fan(i).client.post(`/api/v1/statuses/${status.id}/favourite`);
    await post(fan(3), '@alice hello');
    const groups = (await grouped()).body.notification_groups;
    const favKey = groups[1].group_key;

    const one = await alice.client.get(`/api/v2/notifications/${favKey}`);
    expect(one.status).toBe(200);
    expect(one.body.notification_groups).toEqual([
      {
        group_key: favKey,
        notifications_count: 3,
        type: 'favourite',
        most_recent_notification_id: groups[1].most_recent_notification_id,
        sample_account_ids: [fan(2).accountId, fan(1).accountId, fan(0).accountId],
        status_id: status.id,
      },
    ]);
    expect(one.body.statuses.map((s: any) => s.id)).toEqual([status.id]);
    const mention = await alice.client.get(`/api/v2/notifications/${groups[0].group_key}`);
    expect(mention.body.notification_groups[0]).toMatchObject({ type: 'mention', notifications_count: 1 });
    expect((await alice.client.get('/api/v2/notifications/favourite-1-2')).status).toBe(404);
    expect((await fan(0).client.get(`/api/v2/notifications/${favKey}`)).status).toBe(404);

    const accounts = await alice.client.get(`/api/v2/notifications/${favKey}/accounts`);
    expect(accounts.status).toBe(200);
    expect(accounts.body.map((a: any) => a.id)).toEqual([fan(2).accountId, fan(1).accountId, fan(0).accountId]);

    // Not fan0's group: 404, and alice's stays.
    expect((await fan(0).client.post(`/api/v2/notifications/${favKey}/dismiss`)).status).toBe(404);
    expect((await grouped()).body.notification_groups).toHaveLength(2);
    const dismissed = await alice.client.post(`/api/v2/notifications/${favKey}/dismiss`);
    expect(dismissed.status).toBe(200);
    expect(dismissed.body).toEqual({});
    expect((await grouped()).body.notification_groups.map((g: any) => g.type)).toEqual(['mention']);
    await alice.client.post(`/api/v2/notifications/${groups[0].group_key}/dismiss`);
    expect(await notificationsOf(alice)).toEqual([]);
  });

  it('counts unread groups after the marker, and drives v2 with masto', async () => {
    const status = await post(alice, 'popular');
    await follow(fan(3), alice);
    const marker = (await notificationsOf(alice))[0].id;
    for (let i = 0; i < 3; i++) await fan(i).client.post(`/api/v1/statuses/${status.id}/favourite`);
    await post(fan(3), '@alice hello');
    const count = async (query = '') => (await alice.client.get(`/api/v2/notifications/unread_count${query}`)).body.count;
    expect(await count()).toBe(3);
    expect(await count('?grouped_types[]=follow')).toBe(5);
    expect(await count('?limit=1')).toBe(1);
    await alice.client.post('/api/v1/markers', { notifications: { last_read_id: marker } });
    expect(await count()).toBe(2);
    expect(await count('?types[]=mention')).toBe(1);

    const masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    const page = await masto.v2.notifications.list({ groupedTypes: ['favourite'] });
    expect(page.notificationGroups.map((g) => [g.type, g.notificationsCount])).toEqual([
      ['mention', 1],
      ['favourite', 3],
      ['follow', 1],
    ]);
    expect(page.accounts.length).toBe(4);
    const unread = await masto.v2.notifications.unreadCount.fetch();
    expect(unread.count).toBe(2);
    const key = page.notificationGroups[1]?.groupKey ?? '';
    const one = await masto.v2.notifications.$select(key).fetch();
    expect(one.notificationGroups[0]?.notificationsCount).toBe(3);
    const accounts = await masto.v2.notifications.$select(key).accounts.fetch();
    expect(accounts).toHaveLength(3);
    await masto.v2.notifications.$select(key).dismiss();
    expect((await masto.v2.notifications.list()).notificationGroups).toHaveLength(2);
  });

  it('checks tokens and scopes', async () => {
    const write = inst.tokenFor(alice, 'write:notifications');
    const read = inst.tokenFor(alice, 'read:notifications');
    expect((await inst.anon.get('/api/v2/notifications')).status).toBe(401);
    expect((await alice.client.get('/api/v2/notifications', { token: write })).status).toBe(403);
    expect((await alice.client.get('/api/v2/notifications/unread_count', { token: write })).status).toBe(403);
    expect((await alice.client.get('/api/v2/notifications/follow-1', { token: write })).status).toBe(403);
    expect((await alice.client.get('/api/v2/notifications', { token: read })).status).toBe(200);
    expect((await alice.client.post('/api/v2/notifications/follow-1/dismiss', undefined, { token: read })).status).toBe(403);
    // Past the token checks, a group key alice does not have is 404.
    expect((await alice.client.post('/api/v2/notifications/follow-1/dismiss', undefined, { token: write })).status).toBe(404);
    expect((await alice.client.get('/api/v2/notifications/follow-1/accounts', { token: inst.tokenFor(alice, 'read:statuses') })).status).toBe(403);
    expect((await alice.client.get('/api/v2/notifications/follow-1/accounts', { token: read })).status).toBe(404);
    expect((await inst.anon.post('/api/v2/notifications/follow-1/dismiss')).status).toBe(401);
  });
});
