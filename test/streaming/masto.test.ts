import { createRestAPIClient, createStreamingAPIClient, type mastodon } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { follow, post, seedRemoteAccount, seedRemoteStatus, subscriptions } from './helpers.js';

/** Reads a masto subscription in the background, keeping its events. */
function collect(subscription: mastodon.streaming.Subscription): { events: mastodon.streaming.Event[]; failure: unknown[] } {
  const events: mastodon.streaming.Event[] = [];
  const failure: unknown[] = [];
  void (async () => {
    try {
      for await (const event of subscription) events.push(event);
    } catch (err) {
      failure.push(err);
    }
  })();
  return { events, failure };
}

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the npm masto client streams from Hearth', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let streaming: mastodon.streaming.Client;
  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    await follow(bob.client, alice.accountId);
    // Discovery as masto documents it: the streaming URL from the v2 instance.
    const rest = createRestAPIClient({ url: inst.url, accessToken: bob.token });
    const instance = await rest.v2.instance.fetch();
    streaming = createStreamingAPIClient({ streamingApiUrl: instance.configuration.urls.streaming, accessToken: bob.token, retry: false });
  });
  afterAll(async () => {
    streaming.close();
    await inst.close();
  });

  it('subscribes to every stream kind on one connection and gets each event type', async () => {
    const rest = createRestAPIClient({ url: inst.url, accessToken: bob.token });
    const list = await rest.v1.lists.create({ title: 'masto list' });
    await rest.v1.lists.$select(list.id).accounts.create({ accountIds: [alice.accountId] });
    const subs = {
      user: collect(streaming.user.subscribe()),
      notification: collect(streaming.user.notification.subscribe()),
      public: collect(streaming.public.subscribe()),
      local: collect(streaming.public.local.subscribe()),
      remote: collect(streaming.public.remote.subscribe()),
      media: collect(streaming.public.media.subscribe()),
      remoteMedia: collect(streaming.public.remote.media.subscribe()),
      hashtag: collect(streaming.hashtag.subscribe({ tag: 'otters' })),
      hashtagLocal: collect(streaming.hashtag.local.subscribe({ tag: 'otters' })),
      list: collect(streaming.list.subscribe({ list: list.id })),
      direct: collect(streaming.direct.subscribe()),
    };
    await subscriptions(inst, Object.keys(subs).length);

    const status = await post(alice.client, { status: 'river #otters' });
    const isUpdate = (id: string) => (e: mastodon.streaming.Event) => e.event === 'update' && e.payload.id === id;
    for (const name of ['user', 'public', 'local', 'hashtag', 'hashtagLocal', 'list'] as const) {
      await until(() => subs[name].events.some(isUpdate(status.id)));
    }
    const remote = seedRemoteStatus(inst, seedRemoteAccount(inst, 'otter', 'river.example'), { content: '<p>#otters</p>', media: true, tags: ['otters'] });
    for (const name of ['public', 'remote', 'media', 'remoteMedia', 'hashtag'] as const) await until(() => subs[name].events.some(isUpdate(remote)));

    expect((await alice.client.put(`/api/v1/statuses/${status.id}`, { status: 'river, edited #otters' })).status).toBe(200);
    await until(() => subs.user.events.some((e) => e.event === 'status.update' && e.payload.id === status.id));
    expect((await alice.client.delete(`/api/v1/statuses/${status.id}`)).status).toBe(200);
    await until(() => subs.user.events.some((e) => e.event === 'delete' && e.payload === status.id));

    const dm = await post(alice.client, { status: '@bob hi from masto', visibility: 'direct' });
    await until(() => subs.direct.events.some((e) => e.event === 'conversation' && e.payload.lastStatus?.id === dm.id));
    await until(() => subs.notification.events.some((e) => e.event === 'notification' && e.payload.status?.id === dm.id));

    expect((await bob.client.post('/api/v2/filters', { title: 'masto', context: ['home'], keywords_attributes: [{ keyword: 'x' }] })).status).toBe(200);
    await until(() => subs.user.events.some((e) => e.event === 'filters_changed'));

    for (const [name, sub] of Object.entries(subs)) expect(sub.failure, name).toEqual([]);
    // masto parses the payload strings into entities, with string ids.
    const update = subs.public.events.find(isUpdate(remote));
    expect(update?.event === 'update' && typeof update.payload.account.id).toBe('string');
    // Nothing of the public remote status reached the local stream.
    expect(subs.local.events.some(isUpdate(remote))).toBe(false);
  });

  it('hands a stream error to the masto subscription (someone else\'s list)', async () => {
    const carol = await inst.createUser('carol');
    const list = await bob.client.post('/api/v1/lists', { title: 'private list' });
    const client = createStreamingAPIClient({ streamingApiUrl: inst.url.replace(/^http/, 'ws'), accessToken: carol.token, retry: false });
    try {
      const sub = collect(client.list.subscribe({ list: list.body.id }));
      await until(() => sub.failure.length > 0);
      expect(String(sub.failure[0])).toMatch(/Not authorized to stream this list/);
    } finally {
      client.close();
    }
  });
});
