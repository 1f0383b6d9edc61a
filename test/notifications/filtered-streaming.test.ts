import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { closeSockets, closeStreams, openSocket, openSse, type StreamEvent } from '../streaming/helpers.js';
import { follow, post } from './helpers.js';

const notification = (statusId: string) => (e: StreamEvent) => e.event === 'notification' && e.payload?.status?.id === statusId;

/** The streaming API and the policy: what is filtered is never streamed; accepting a request says so. */
describe('filtered notifications on the streaming API', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let friend: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    friend = await inst.createUser('friend');
    stranger = await inst.createUser('stranger');
    await follow(alice, friend);
  });
  afterEach(() => {
    closeSockets();
    closeStreams();
  });
  afterAll(async () => {
    await inst.close();
  });

  it('streams no filtered notification; accepting its request sends notifications_merged', async () => {
    const user = await openSocket(inst, alice.token, { query: 'stream=user' });
    const notifications = await openSocket(inst, alice.token, { query: 'stream=user:notification' });
    const sse = await openSse(inst, '/api/v1/streaming/user/notification', alice.token);
    const statusesOnly = await openSocket(inst, inst.tokenFor(alice, 'read:statuses'), { query: 'stream=user' });

    const filtered = await post(stranger, '@alice a secret from a stranger', { visibility: 'direct' });
    const shown = await post(friend, '@alice a secret from a friend', { visibility: 'direct' });
    // The friend's arrives on both streams; by then the stranger's was handled (events go in order).
    for (const socket of [user, notifications]) await socket.next(notification(shown.id));
    await sse.until(() => sse.events.some((e) => e.event === 'notification' && JSON.parse(e.data).status.id === shown.id));
    for (const socket of [user, notifications]) expect(socket.matching(notification(filtered.id))).toEqual([]);
    expect(sse.events.filter((e) => e.event === 'notification').map((e) => JSON.parse(e.data).status.id)).toEqual([shown.id]);
    // The request is there for whoever asks.
    const [request] = (await alice.client.get('/api/v1/notifications/requests')).body;
    expect(request.last_status.id).toBe(filtered.id);

    expect((await alice.client.post(`/api/v1/notifications/requests/${request.id}/accept`)).status).toBe(200);
    for (const socket of [user, notifications]) {
      const merged = await socket.next((e) => e.event === 'notifications_merged');
      expect(merged.raw).toBe('1');
    }
    await sse.until(() => sse.events.some((e) => e.event === 'notifications_merged' && e.data === '1'));
    // Merging does not replay the merged notifications as new ones.
    for (const socket of [user, notifications]) expect(socket.matching(notification(filtered.id))).toEqual([]);
    // A `user` stream without the notifications scope hears of neither.
    await post(friend, '@alice are you there?', { visibility: 'direct' });
    await user.next((e) => e.event === 'notification' && e.payload.status.content.includes('are you there'));
    expect(statusesOnly.events.filter((e) => e.event === 'notification' || e.event === 'notifications_merged')).toEqual([]);
    // The stranger is accepted now: their next mention is streamed.
    const next = await post(stranger, '@alice thanks for accepting', { visibility: 'direct' });
    await notifications.next(notification(next.id));
  });
});
