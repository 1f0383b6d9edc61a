import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startFederated } from '../federation/helpers.js';
import type { TestUser } from '../helpers/instance.js';
import { closeSockets, openSocket, type StreamEvent } from '../streaming/helpers.js';
import { notificationsOf } from './helpers.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;

/** How long a delivery may take (generous: the machine may be busy). */
const WAIT = 25_000;

const mentionOf = (uri: string) => (e: StreamEvent) => e.event === 'notification' && e.payload?.status?.uri === uri;

/** Two real instances on loopback: the receiving instance's policy applies to mentions that arrive by federation. */
describe('filtered notifications from another instance', () => {
  let a: Inst;
  let b: Inst;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    a = await startFederated('127.0.0.2');
    b = await startFederated('127.0.0.3');
    alice = await a.createUser('alice');
    bob = await b.createUser('bob');
    // B learns of alice (WebFinger and her actor), so that a mention of her names her account.
    await resolveAlice(bob);
  }, 90_000);
  afterEach(() => closeSockets());
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  const resolveAlice = async (user: TestUser) => {
    const res = await user.client.get(`/api/v2/search?q=${encodeURIComponent(`alice@${a.domain}`)}&resolve=true&type=accounts`);
    expect(res.body.accounts?.[0]?.acct, res.text).toBe(`alice@${a.domain}`);
  };
  const say = async (status: string, visibility = 'public') => {
    const res = await bob.client.post('/api/v1/statuses', { status, visibility });
    expect(res.status, res.text).toBe(200);
    return res.body as { id: string; uri: string };
  };
  const requestsOnA = async () => (await alice.client.get('/api/v1/notifications/requests')).body as any[];

  it('files a remote private mention under requests, unstreamed, and accepting brings it into the notifications', async () => {
    const socket = await openSocket(a, alice.token, { query: 'stream=user:notification' });
    const secret = await say(`@alice@${a.domain} a secret from afar`, 'direct');
    const [request] = await eventually(async () => {
      const list = await requestsOnA();
      return list.length > 0 ? list : null;
    }, WAIT);
    expect(request).toMatchObject({ notifications_count: '1', account: { acct: `bob@${b.domain}` }, last_status: { uri: secret.uri, visibility: 'direct' } });
    expect(await notificationsOf(alice)).toEqual([]);
    expect((await alice.client.get('/api/v1/notifications/unread_count')).body.count).toBe(0);
    expect((await alice.client.get('/api/v2/notifications/policy')).body.summary).toEqual({ pending_requests_count: 1, pending_notifications_count: 1 });

    // A public mention passes the default policy and is streamed; the secret, handled before it, was not.
    const open = await say(`@alice@${a.domain} hello in public`);
    await socket.next(mentionOf(open.uri), WAIT);
    expect(socket.matching(mentionOf(secret.uri))).toEqual([]);
    expect((await notificationsOf(alice)).map((n) => n.status.uri)).toEqual([open.uri]);

    expect((await alice.client.post(`/api/v1/notifications/requests/${request.id}/accept`)).status).toBe(200);
    await socket.next((e) => e.event === 'notifications_merged');
    expect((await notificationsOf(alice)).map((n) => n.status.uri)).toEqual([open.uri, secret.uri]);
    expect(await requestsOnA()).toEqual([]);
    // Bob is accepted on A from now on.
    const later = await say(`@alice@${a.domain} another secret`, 'direct');
    await socket.next(mentionOf(later.uri), WAIT);
  }, 120_000);

  it('applies a stricter policy to federated mentions: for_not_following filters even public ones', async () => {
    const carol = await b.createUser('carol');
    await resolveAlice(carol);
    expect((await alice.client.patch('/api/v2/notifications/policy', { for_not_following: 'filter' })).status).toBe(200);
    const res = await carol.client.post('/api/v1/statuses', { status: `@alice@${a.domain} hi, I am carol` });
    expect(res.status).toBe(200);
    const [request] = await eventually(async () => {
      const list = (await requestsOnA()).filter((r) => r.account.acct === `carol@${b.domain}`);
      return list.length > 0 ? list : null;
    }, WAIT);
    expect(request.last_status.uri).toBe(res.body.uri);
    expect((await notificationsOf(alice)).some((n) => n.account.acct === `carol@${b.domain}`)).toBe(false);
    // Dismissing drops it on A; nothing goes back to B.
    expect((await alice.client.post(`/api/v1/notifications/requests/${request.id}/dismiss`)).status).toBe(200);
    expect(await notificationsOf(alice, `account_id=${request.account.id}`)).toEqual([]);
    // Bob was accepted before: the stricter policy does not hold him back.
    const fromBob = await say(`@alice@${a.domain} still me`);
    await eventually(async () => (await notificationsOf(alice)).some((n) => n.status.uri === fromBob.uri), WAIT);
  }, 90_000);
});
