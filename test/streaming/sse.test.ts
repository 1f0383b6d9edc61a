import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { streamingHub } from '../../api/streaming/index.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { closeStreams, follow, openSse, post, seedRemoteAccount, seedRemoteStatus, settle, subscriptions } from './helpers.js';

describe('streaming over server-sent events', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    await follow(bob.client, alice.accountId);
  });
  afterEach(async () => {
    closeStreams();
    await subscriptions(inst, 0);
  });
  afterAll(async () => {
    await inst.close();
  });

  it('streams every channel at its Mastodon path with `event:` and `data:` lines', async () => {
    const list = await bob.client.post('/api/v1/lists', { title: 'people' });
    expect((await bob.client.post(`/api/v1/lists/${list.body.id}/accounts`, { account_ids: [alice.accountId] })).status).toBe(200);
    const user = await openSse(inst, '/api/v1/streaming/user', bob.token);
    const publicAll = await openSse(inst, '/api/v1/streaming/public', bob.token);
    const local = await openSse(inst, '/api/v1/streaming/public/local', bob.token);
    const remote = await openSse(inst, '/api/v1/streaming/public/remote', bob.token);
    const media = await openSse(inst, '/api/v1/streaming/public?only_media=true', bob.token);
    const remoteMedia = await openSse(inst, '/api/v1/streaming/public/remote?only_media=1', bob.token);
    const tag = await openSse(inst, '/api/v1/streaming/hashtag?tag=birds', bob.token);
    const tagLocal = await openSse(inst, '/api/v1/streaming/hashtag/local?tag=birds', bob.token);
    const listed = await openSse(inst, `/api/v1/streaming/list?list=${list.body.id}`, bob.token);
    const direct = await openSse(inst, '/api/v1/streaming/direct', bob.token);
    const notes = await openSse(inst, '/api/v1/streaming/user/notification', bob.token);
    await subscriptions(inst, 11);

    const status = await post(alice.client, { status: 'look #birds' });
    const byId = (s: { id: string }) => s.id === status.id;
    for (const stream of [user, publicAll, local, tag, tagLocal, listed]) await stream.next('update', byId);
    const remoteStatus = seedRemoteStatus(inst, seedRemoteAccount(inst, 'birder', 'far.example'), { content: '<p>a heron #birds</p>', media: true, tags: ['birds'] });
    for (const stream of [publicAll, remote, media, remoteMedia, tag]) await stream.next('update', (s: { id: string }) => s.id === remoteStatus);
    const dm = await post(alice.client, { status: '@bob psst', visibility: 'direct' });
    const conversation = await direct.next('conversation', (c: { last_status: { id: string } }) => c.last_status.id === dm.id);
    expect(conversation.accounts[0].id).toBe(alice.accountId);
    const notification = await notes.next('notification', (n: { status?: { id: string } }) => n.status?.id === dm.id);
    expect(notification.type).toBe('mention');
    await user.next('notification', (n: { status?: { id: string } }) => n.status?.id === dm.id);
    // An edit and a deletion.
    expect((await alice.client.put(`/api/v1/statuses/${status.id}`, { status: 'look again #birds' })).status).toBe(200);
    const edited = await publicAll.next('status.update', byId);
    expect(edited.content).toContain('look again');
    expect((await alice.client.delete(`/api/v1/statuses/${status.id}`)).status).toBe(200);
    expect(await user.next('delete', (id: string) => id === status.id)).toBe(status.id);
    await tag.next('delete', (id: string) => id === status.id);
    await listed.next('delete', (id: string) => id === status.id);
    await settle();
    // Each stream got only what belongs to it.
    expect(local.events.filter((e) => e.event === 'update').map((e) => JSON.parse(e.data).id)).toEqual([status.id]);
    expect(remote.events.filter((e) => e.event === 'update').map((e) => JSON.parse(e.data).id)).toEqual([remoteStatus]);
    expect(tagLocal.events.filter((e) => e.event === 'update').map((e) => JSON.parse(e.data).id)).toEqual([status.id]);
    expect(media.events.filter((e) => e.event === 'update').map((e) => JSON.parse(e.data).id)).toEqual([remoteStatus]);
    expect(notes.events.every((e) => e.event === 'notification')).toBe(true);
    expect(direct.events.map((e) => e.event).sort()).toEqual(['conversation']);
  });

  it('sends filters_changed with `data: undefined`, as Mastodon writes it', async () => {
    const user = await openSse(inst, '/api/v1/streaming/user', carol.token);
    await subscriptions(inst, 1);
    const res = await carol.client.post('/api/v2/filters', { title: 'x', context: ['home'], keywords_attributes: [{ keyword: 'a' }, { keyword: 'b' }] });
    expect(res.status).toBe(200);
    await user.until(() => user.events.some((e) => e.event === 'filters_changed'));
    await settle();
    expect(user.events).toEqual([{ event: 'filters_changed', data: 'undefined' }]);
  });

  it('accepts the token as access_token, and answers errors as JSON before streaming', async () => {
    const byQuery = await fetch(`${inst.url}/api/v1/streaming/public?access_token=${bob.token}`);
    expect(byQuery.status).toBe(200);
    await byQuery.body?.cancel();
    const cases: [string, string | null, number, string][] = [
      ['/api/v1/streaming/nope', bob.token, 400, 'Unknown channel requested'],
      ['/api/v1/streaming/public', null, 401, 'Missing access token'],
      ['/api/v1/streaming/public', 'bad-token', 401, 'Invalid access token'],
      ['/api/v1/streaming/hashtag', bob.token, 400, 'Missing tag name parameter'],
      ['/api/v1/streaming/list', bob.token, 400, 'Missing list name parameter'],
      ['/api/v1/streaming/list?list=999', bob.token, 401, 'Not authorized to stream this list'],
      ['/api/v1/streaming/user/notification', inst.tokenFor(bob, 'read:statuses'), 401, 'Access token does not have the required scopes'],
      ['/api/v1/streaming/public', inst.tokenFor(bob, 'write'), 401, 'Access token does not have the required scopes'],
    ];
    for (const [path, token, status, error] of cases) {
      const res = await fetch(`${inst.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
      expect(res.status, path).toBe(status);
      expect(await res.json(), path).toEqual({ error });
    }
    // Someone else's list.
    const list = await bob.client.post('/api/v1/lists', { title: 'mine' });
    const other = await fetch(`${inst.url}/api/v1/streaming/list?list=${list.body.id}`, { headers: { authorization: `Bearer ${carol.token}` } });
    expect(other.status).toBe(401);
    await other.body?.cancel();
    await settle(50);
    expect(streamingHub(inst.deps)?.sessionCount).toBe(0);
  });

  it('writes a `:thump` comment line every heartbeat period', async () => {
    const hub = streamingHub(inst.deps)!;
    hub.setHeartbeats(30_000, 100);
    try {
      const stream = await openSse(inst, '/api/v1/streaming/public', bob.token);
      await stream.until(() => stream.comments.filter((c) => c === ':thump').length >= 2, 2000);
      expect(stream.comments[0]).toBe(':)');
    } finally {
      hub.setHeartbeats(30_000, 15_000);
    }
  });

  it('forgets a stream when the client goes away', async () => {
    const stream = await openSse(inst, '/api/v1/streaming/public', bob.token);
    await subscriptions(inst, 1);
    stream.close();
    await subscriptions(inst, 0);
    // And the server still streams to others.
    const again = await openSse(inst, '/api/v1/streaming/public', bob.token);
    const status = await post(alice.client, { status: 'after a goodbye' });
    await again.next('update', (s: { id: string }) => s.id === status.id);
  });
});
