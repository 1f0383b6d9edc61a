import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { follow, linkPath, notificationsOf, post } from './helpers.js';

describe('notifications v1: listing, filters, one, dismiss, clear, unread count', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let status: { id: string };
  /** Alice's notifications, newest first: favourite (carol), mention (carol), follow (carol), mention (bob), follow (bob). */
  let all: any[];

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    await follow(bob, alice);
    await post(bob, '@alice hi');
    await follow(carol, alice);
    await post(carol, '@alice hey');
    status = await post(alice, 'a post');
    await carol.client.post(`/api/v1/statuses/${status.id}/favourite`);
    all = await notificationsOf(alice);
  });
  afterAll(async () => {
    await inst.close();
  });

  const ids = (list: { id: string }[]) => list.map((n) => n.id);

  it('lists newest first with Mastodon\'s fields', async () => {
    expect(all.map((n) => [n.type, n.account.id])).toEqual([
      ['favourite', carol.accountId],
      ['mention', carol.accountId],
      ['follow', carol.accountId],
      ['mention', bob.accountId],
      ['follow', bob.accountId],
    ]);
    expect(all[0]).toEqual({
      id: expect.any(String),
      type: 'favourite',
      group_key: expect.stringMatching(/^favourite-/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      account: expect.objectContaining({ id: carol.accountId, acct: 'carol' }),
      status: expect.objectContaining({ id: status.id, favourited: false, favourites_count: 1 }),
    });
  });

  it('filters by types[], exclude_types[] and account_id', async () => {
    expect((await notificationsOf(alice, 'types[]=mention')).map((n) => n.type)).toEqual(['mention', 'mention']);
    expect((await notificationsOf(alice, 'types[]=mention&types[]=follow')).length).toBe(4);
    expect((await notificationsOf(alice, 'exclude_types[]=mention&exclude_types[]=follow')).map((n) => n.type)).toEqual(['favourite']);
    // Unknown types are ignored, as Mastodon intersects them with the known ones: only unknown ones match nothing.
    expect((await notificationsOf(alice, 'types[]=nonsense&types[]=favourite')).map((n) => n.type)).toEqual(['favourite']);
    expect(await notificationsOf(alice, 'types[]=nonsense')).toEqual([]);
    expect(await notificationsOf(alice, 'types[]=mention&exclude_types[]=mention')).toEqual([]);
    expect(ids(await notificationsOf(alice, `account_id=${bob.accountId}`))).toEqual([all[3].id, all[4].id]);
    expect(ids(await notificationsOf(alice, `account_id=${bob.accountId}&types[]=follow`))).toEqual([all[4].id]);
    // An account id that cannot exist matches nothing, as in Mastodon.
    expect(await notificationsOf(alice, 'account_id=abc')).toEqual([]);
  });

  it('pages with max_id, since_id and min_id, and Link headers that keep the filters', async () => {
    const first = await alice.client.get('/api/v1/notifications?limit=2&exclude_types[]=favourite');
    expect(ids(first.body)).toEqual([all[1].id, all[2].id]);
    const next = linkPath(first.headers.get('link'), 'next');
    expect(next).toContain('exclude_types');
    expect(next).toContain(`max_id=${all[2].id}`);
    const second = await alice.client.get(next);
    expect(ids(second.body)).toEqual([all[3].id, all[4].id]);
    const prev = await alice.client.get(linkPath(second.headers.get('link'), 'prev'));
    expect(ids(prev.body)).toEqual([all[1].id, all[2].id]);
    expect(ids((await alice.client.get(`/api/v1/notifications?since_id=${all[2].id}`)).body)).toEqual([all[0].id, all[1].id]);
    expect(ids((await alice.client.get(`/api/v1/notifications?min_id=${all[4].id}&limit=2`)).body)).toEqual([all[2].id, all[3].id]);
    const empty = await alice.client.get(`/api/v1/notifications?since_id=${all[0].id}`);
    expect(empty.body).toEqual([]);
    expect(empty.headers.get('link')).toBeNull();
  });

  it('gets one notification, and 404 for someone else\'s or an unknown one', async () => {
    const one = await alice.client.get(`/api/v1/notifications/${all[1].id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(all[1]);
    expect((await bob.client.get(`/api/v1/notifications/${all[1].id}`)).status).toBe(404);
    expect((await alice.client.get('/api/v1/notifications/12345')).status).toBe(404);
    expect((await alice.client.get('/api/v1/notifications/abc')).status).toBe(404);
  });

  it('drives listing with masto', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    const list = await masto.v1.notifications.list({ types: ['follow'] });
    expect(list.map((n) => n.type)).toEqual(['follow', 'follow']);
    const one = await masto.v1.notifications.$select(all[0].id).fetch();
    expect(one.type).toBe('favourite');
    const pages: string[] = [];
    for await (const page of masto.v1.notifications.list({ limit: 2 })) pages.push(...page.map((n) => n.id));
    expect(pages).toEqual(ids(all));
    const count = await masto.v1.notifications.unreadCount.fetch();
    expect(count.count).toBe(5);
  });

  it('counts unread notifications after the notifications marker', async () => {
    const count = async (query = '') => (await alice.client.get(`/api/v1/notifications/unread_count${query}`)).body.count;
    expect(await count()).toBe(5);
    expect(await count('?limit=2')).toBe(2);
    expect(await count('?types[]=mention')).toBe(2);
    expect(await count(`?account_id=${bob.accountId}`)).toBe(2);
    const saved = await alice.client.post('/api/v1/markers', { notifications: { last_read_id: all[2].id } });
    expect(saved.status).toBe(200);
    expect(await count()).toBe(2);
    expect(await count('?exclude_types[]=favourite')).toBe(1);
    // Bob's marker is his own.
    expect((await bob.client.get('/api/v1/notifications/unread_count')).body.count).toBe(0);
  });

  it('leaves out notifications about a status the recipient may no longer see', async () => {
    const dave = await inst.createUser('dave');
    await follow(alice, dave, { notify: true });
    const secret = await post(dave, 'followers only', { visibility: 'private' });
    expect((await notificationsOf(alice, 'types[]=status')).map((n) => n.status.id)).toEqual([secret.id]);
    await alice.client.post(`/api/v1/accounts/${dave.accountId}/unfollow`);
    expect(await notificationsOf(alice, 'types[]=status')).toEqual([]);
    const stored = inst.deps.db.query<{ id: string }>("SELECT id FROM notifications WHERE type = 'status'").all();
    expect(stored).toHaveLength(1);
    expect((await alice.client.get(`/api/v1/notifications/${stored[0]?.id}`)).status).toBe(404);
  });

  it('dismisses one notification (404 for someone else\'s) and clears all', async () => {
    expect((await bob.client.post(`/api/v1/notifications/${all[0].id}/dismiss`)).status).toBe(404);
    const res = await alice.client.post(`/api/v1/notifications/${all[0].id}/dismiss`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await alice.client.get(`/api/v1/notifications/${all[0].id}`)).status).toBe(404);
    expect((await alice.client.post(`/api/v1/notifications/${all[0].id}/dismiss`)).status).toBe(404);
    expect((await notificationsOf(alice)).length).toBe(4);

    const masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    await masto.v1.notifications.$select(all[1].id).dismiss();
    expect((await notificationsOf(alice)).length).toBe(3);
    await masto.v1.notifications.clear();
    expect(await notificationsOf(alice)).toEqual([]);
    // Bob's are untouched.
    expect((await notificationsOf(bob)).length).toBe(0);
    expect((await notificationsOf(carol)).length).toBe(0);
  });

  it('checks tokens and scopes: read:notifications to read, write:notifications to change', async () => {
    expect((await inst.anon.get('/api/v1/notifications')).status).toBe(401);
    expect((await alice.client.get('/api/v1/notifications', { token: 'bogus' })).status).toBe(401);
    const write = inst.tokenFor(alice, 'write:notifications');
    const read = inst.tokenFor(alice, 'read:notifications');
    for (const path of ['/api/v1/notifications', '/api/v1/notifications/unread_count', `/api/v1/notifications/${all[2].id}`]) {
      const denied = await alice.client.get(path, { token: write });
      expect(denied.status).toBe(403);
      expect(denied.body.error).toBe('This action is outside the authorized scopes');
    }
    expect((await alice.client.get('/api/v1/notifications', { token: read })).status).toBe(200);
    expect((await alice.client.get('/api/v1/notifications', { token: inst.tokenFor(alice, 'read') })).status).toBe(200);
    expect((await alice.client.post('/api/v1/notifications/clear', undefined, { token: read })).status).toBe(403);
    expect((await alice.client.post(`/api/v1/notifications/${all[2].id}/dismiss`, undefined, { token: read })).status).toBe(403);
    expect((await alice.client.post('/api/v1/notifications/clear', undefined, { token: write })).status).toBe(200);
    expect((await inst.anon.post('/api/v1/notifications/clear')).status).toBe(401);
  });
});
