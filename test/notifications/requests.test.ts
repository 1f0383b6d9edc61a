import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { follow, linkPath, notificationsOf, post } from './helpers.js';

/** Requests: where the notifications the policy filters wait, by sender, until accepted or dismissed. */
describe('notification requests', () => {
  let inst: TestInstance;
  let alice: TestUser;
  const users: Record<string, TestUser> = {};

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    for (const name of ['bob', 'carol', 'dave', 'erin', 'fred', 'gina', 'hank', 'ivy']) users[name] = await inst.createUser(name);
  });
  afterAll(async () => {
    await inst.close();
  });

  const user = (name: string): TestUser => {
    const u = users[name];
    if (!u) throw new Error(`no user ${name}`);
    return u;
  };
  const dm = (from: string, text = 'psst') => post(user(from), `@alice ${text}`, { visibility: 'direct' });
  const requests = async (query = '') => {
    const res = await alice.client.get(`/api/v1/notifications/requests${query ? `?${query}` : ''}`);
    expect(res.status, res.text).toBe(200);
    return res;
  };
  const requestFrom = async (name: string) => ((await requests()).body as any[]).find((r) => r.account.id === user(name).accountId);
  const summary = async () => (await alice.client.get('/api/v2/notifications/policy')).body.summary;
  const count = async (path: string) => (await alice.client.get(path)).body.count as number;

  it('files a private mention from a stranger under requests: out of the lists, the counts and the unread', async () => {
    const first = await dm('bob', 'first');
    const second = await dm('bob', 'second');
    expect(await notificationsOf(alice)).toEqual([]);
    expect((await alice.client.get('/api/v2/notifications')).body.notification_groups).toEqual([]);
    expect(await count('/api/v1/notifications/unread_count')).toBe(0);
    expect(await count('/api/v2/notifications/unread_count')).toBe(0);
    // Still there when asked for, and when listing one sender's notifications (as clients show a request).
    const filtered = await notificationsOf(alice, 'include_filtered=true');
    expect(filtered.map((n) => n.status.id)).toEqual([second.id, first.id]);
    expect((await notificationsOf(alice, `account_id=${user('bob').accountId}`)).map((n) => n.id)).toEqual(filtered.map((n) => n.id));
    const grouped = await alice.client.get('/api/v2/notifications?include_filtered=true');
    expect(grouped.body.notification_groups.map((g: any) => g.type)).toEqual(['mention', 'mention']);
    // include_filtered does not make them unread.
    expect(await count('/api/v1/notifications/unread_count?include_filtered=true')).toBe(0);
    expect((await alice.client.get(`/api/v1/notifications/${filtered[0].id}`)).status).toBe(200);

    const { body } = await requests();
    expect(body).toHaveLength(1);
    expect(body[0]).toMatchObject({ notifications_count: '2', account: { id: user('bob').accountId, acct: 'bob' }, last_status: { id: second.id } });
    expect(Date.parse(body[0].updated_at)).toBeGreaterThanOrEqual(Date.parse(body[0].created_at));
    const one = await alice.client.get(`/api/v1/notifications/requests/${body[0].id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(body[0]);
    expect(await summary()).toEqual({ pending_requests_count: 1, pending_notifications_count: 2 });
    expect((await alice.client.get('/api/v1/notifications/policy')).body.summary).toEqual({ pending_requests_count: 1, pending_notifications_count: 2 });
    // Bob sees nothing of it.
    expect((await user('bob').client.get('/api/v1/notifications/requests')).body).toEqual([]);
    expect((await user('bob').client.get(`/api/v1/notifications/requests/${body[0].id}`)).status).toBe(404);
  });

  it('accepting merges the notifications in their place and lets the sender through from then on', async () => {
    const dmFromCarol = await dm('carol', 'hello');
    const own = await post(alice, 'something to like');
    expect((await user('dave').client.post(`/api/v1/statuses/${own.id}/favourite`)).status).toBe(200);
    const request = await requestFrom('carol');
    expect(request).toBeDefined();
    const before = (await notificationsOf(alice)).map((n) => n.type);
    expect(before).toEqual(['favourite']);

    const accepted = await alice.client.post(`/api/v1/notifications/requests/${request.id}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({});
    expect((await alice.client.get('/api/v1/notifications/requests/merged')).body).toEqual({ merged: true });
    const after = await notificationsOf(alice);
    // The mention came before the favourite, and sits below it.
    expect(after.map((n) => [n.type, n.account.id])).toEqual([
      ['favourite', user('dave').accountId],
      ['mention', user('carol').accountId],
    ]);
    expect(after[1].status.id).toBe(dmFromCarol.id);
    expect(await count('/api/v1/notifications/unread_count')).toBe(2);
    expect((await alice.client.get(`/api/v1/notifications/requests/${request.id}`)).status).toBe(404);
    expect(await requestFrom('carol')).toBeUndefined();

    // Carol is accepted now: her next private mention goes straight to the notifications.
    const next = await dm('carol', 'again');
    expect((await notificationsOf(alice))[0]).toMatchObject({ type: 'mention', status: { id: next.id } });
    expect(await requestFrom('carol')).toBeUndefined();
    // Accepting it again: it is gone.
    expect((await alice.client.post(`/api/v1/notifications/requests/${request.id}/accept`)).status).toBe(404);
  });

  it('dismissing drops the filtered notifications; a later one opens a new request', async () => {
    await dm('erin', 'one');
    await dm('erin', 'two');
    const request = await requestFrom('erin');
    expect(request.notifications_count).toBe('2');
    const res = await alice.client.post(`/api/v1/notifications/requests/${request.id}/dismiss`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await requestFrom('erin')).toBeUndefined();
    expect(await notificationsOf(alice, `account_id=${user('erin').accountId}`)).toEqual([]);
    expect((await alice.client.get(`/api/v1/notifications/requests/${request.id}`)).status).toBe(404);
    // Dismissing is not accepting: erin is still filtered, in a new request.
    const three = await dm('erin', 'three');
    const renewed = await requestFrom('erin');
    expect(renewed.id).not.toBe(request.id);
    expect(renewed).toMatchObject({ notifications_count: '1', last_status: { id: three.id } });
    expect((await alice.client.post(`/api/v1/notifications/requests/${renewed.id}/dismiss`)).status).toBe(200);
  });

  it('accepts and dismisses several at once, ignoring ids that name none of the viewer’s requests', async () => {
    await dm('fred');
    await dm('gina');
    await dm('hank');
    const fred = await requestFrom('fred');
    const gina = await requestFrom('gina');
    const hank = await requestFrom('hank');
    const bobs = await requestFrom('bob');
    // Another user's request id is no business of alice's: ivy gets a request from fred too.
    await post(user('fred'), '@ivy hi', { visibility: 'direct' });
    const ivys = ((await user('ivy').client.get('/api/v1/notifications/requests')).body as any[])[0];

    const accepted = await alice.client.post('/api/v1/notifications/requests/accept', undefined, { form: { 'id[]': [fred.id, gina.id, '123', 'nonsense', ivys.id] } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({});
    expect(await requestFrom('fred')).toBeUndefined();
    expect(await requestFrom('gina')).toBeUndefined();
    expect((await notificationsOf(alice)).filter((n) => [user('fred').accountId, user('gina').accountId].includes(n.account.id))).toHaveLength(2);
    expect((await user('ivy').client.get('/api/v1/notifications/requests')).body).toHaveLength(1);

    const dismissed = await alice.client.post('/api/v1/notifications/requests/dismiss', { id: [hank.id, bobs.id] });
    expect(dismissed.status).toBe(200);
    expect((await requests()).body).toEqual([]);
    expect(await summary()).toEqual({ pending_requests_count: 0, pending_notifications_count: 0 });
    // Nothing named: nothing done, as Mastodon answers.
    expect((await alice.client.post('/api/v1/notifications/requests/accept')).status).toBe(200);
    expect((await alice.client.post('/api/v1/notifications/requests/dismiss', { id: [] })).status).toBe(200);
  });

  it('a request whose statuses were deleted is gone, and a new mention starts a new one', async () => {
    const status = await post(user('ivy'), '@alice soon gone', { visibility: 'direct' });
    const request = await requestFrom('ivy');
    expect(request.last_status.id).toBe(status.id);
    expect((await user('ivy').client.delete(`/api/v1/statuses/${status.id}`)).status).toBe(200);
    expect(await requestFrom('ivy')).toBeUndefined();
    expect((await alice.client.get(`/api/v1/notifications/requests/${request.id}`)).status).toBe(404);
    expect(await summary()).toEqual({ pending_requests_count: 0, pending_notifications_count: 0 });
    const again = await post(user('ivy'), '@alice still here', { visibility: 'direct' });
    const renewed = await requestFrom('ivy');
    expect(renewed.id).not.toBe(request.id);
    expect(renewed).toMatchObject({ notifications_count: '1', last_status: { id: again.id } });
    await alice.client.post(`/api/v1/notifications/requests/${renewed.id}/dismiss`);
  });

  it('a request from an account alice then blocks is no longer shown', async () => {
    const stranger = await inst.createUser('stranger');
    await post(stranger, '@alice buy my stuff', { visibility: 'direct' });
    expect(await summary()).toEqual({ pending_requests_count: 1, pending_notifications_count: 1 });
    const request = ((await requests()).body as any[])[0];
    expect((await alice.client.post(`/api/v1/accounts/${stranger.accountId}/block`)).status).toBe(200);
    expect((await requests()).body).toEqual([]);
    expect(await summary()).toEqual({ pending_requests_count: 0, pending_notifications_count: 0 });
    expect((await alice.client.get(`/api/v1/notifications/requests/${request.id}`)).status).toBe(404);
  });

  it('pages requests newest first with Link headers', async () => {
    const senders = [];
    for (const name of ['pager1', 'pager2', 'pager3']) {
      const u = await inst.createUser(name);
      senders.push(u);
      await post(u, '@alice page me', { visibility: 'direct' });
    }
    const first = await requests('limit=2');
    expect(first.body.map((r: any) => r.account.username)).toEqual(['pager3', 'pager2']);
    const next = await alice.client.get(linkPath(first.headers.get('link'), 'next'));
    expect(next.body.map((r: any) => r.account.username)).toEqual(['pager1']);
    const prev = await alice.client.get(linkPath(next.headers.get('link'), 'prev'));
    expect(prev.body.map((r: any) => r.account.username)).toEqual(['pager3', 'pager2']);
    // A limit beyond the maximum is capped, not refused.
    expect((await requests('limit=500')).body).toHaveLength(3);
    await alice.client.post('/api/v1/notifications/requests/dismiss', { id: (await requests()).body.map((r: any) => r.id) });
  });

  it('answers bad input as Mastodon does', async () => {
    for (const id of ['abc', '999', '1e3']) {
      expect((await alice.client.get(`/api/v1/notifications/requests/${id}`)).status, id).toBe(404);
      const res = await alice.client.post(`/api/v1/notifications/requests/${id}/accept`);
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
      expect((await alice.client.post(`/api/v1/notifications/requests/${id}/dismiss`)).status, id).toBe(404);
    }
    const bad = await alice.client.get('/api/v1/notifications/requests?max_id=abc');
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatch(/^Validation failed/);
  });

  it('checks tokens and scopes', async () => {
    const read = inst.tokenFor(alice, 'read:notifications');
    const write = inst.tokenFor(alice, 'write:notifications');
    const broad = inst.tokenFor(alice, 'read write');
    for (const path of ['/api/v1/notifications/requests', '/api/v1/notifications/requests/merged', '/api/v1/notifications/requests/1']) {
      expect((await inst.anon.get(path)).status, path).toBe(401);
      expect((await alice.client.get(path, { token: write })).status, path).toBe(403);
      expect((await alice.client.get(path, { token: read })).status, path).not.toBe(403);
      expect((await alice.client.get(path, { token: broad })).status, path).not.toBe(403);
    }
    for (const path of ['/api/v1/notifications/requests/accept', '/api/v1/notifications/requests/dismiss', '/api/v1/notifications/requests/1/accept', '/api/v1/notifications/requests/1/dismiss']) {
      expect((await inst.anon.post(path)).status, path).toBe(401);
      expect((await alice.client.post(path, undefined, { token: read })).status, path).toBe(403);
      expect((await alice.client.post(path, undefined, { token: write })).status, path).not.toBe(403);
    }
    // An app token (no user) cannot have requests.
    const app = await inst.anon.post('/api/v1/apps', { client_name: 'x', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' });
    const token = await inst.anon.post('/oauth/token', { grant_type: 'client_credentials', client_id: app.body.client_id, client_secret: app.body.client_secret, scope: 'read' });
    expect((await inst.anon.get('/api/v1/notifications/requests', { token: token.body.access_token })).status).toBe(422);
  });
});
