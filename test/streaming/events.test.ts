import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { closeSockets, follow, openSocket, post, seedRemoteAccount, seedRemoteStatus, settle, type StreamEvent } from './helpers.js';

const on = (stream: string[], event: string, id?: string) => (e: StreamEvent) =>
  JSON.stringify(e.stream) === JSON.stringify(stream) && e.event === event && (id === undefined || (event === 'delete' ? e.payload === id : e.payload?.id === id));

describe('streaming events: what each stream gets, rendered as REST renders it', () => {
  let inst: TestInstance;
  let alice: TestUser; // posts
  let bob: TestUser; // follows alice
  let carol: TestUser; // follows nobody
  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    await follow(bob.client, alice.accountId);
  });
  afterEach(() => closeSockets());
  afterAll(async () => {
    await inst.close();
  });

  it('update on user: what enters the home feed, with the viewer flags and text REST gives', async () => {
    const bobs = await openSocket(inst, bob.token, { query: 'stream=user' });
    const carols = await openSocket(inst, carol.token, { query: 'stream=user' });
    const alices = await openSocket(inst, alice.token, { query: 'stream=user' });
    const status = await post(alice.client, { status: 'for my followers' });
    const event = await bobs.next(on(['user'], 'update', status.id));
    // Byte for byte what GET /api/v1/statuses/:id answers bob.
    const rest = await bob.client.get(`/api/v1/statuses/${status.id}`);
    expect(event.raw).toBe(rest.text);
    expect(event.payload.favourited).toBe(false);
    expect(event.payload.filtered).toEqual([]);
    // The author's own home gets it too, with `pinned` (theirs to pin).
    const own = await alices.next(on(['user'], 'update', status.id));
    expect(own.raw).toBe((await alice.client.get(`/api/v1/statuses/${status.id}`)).text);
    expect(own.payload.pinned).toBe(false);
    await settle();
    // Carol follows nobody: nothing enters her home.
    expect(carols.events).toEqual([]);
  });

  it('update on user for a boost carries the flags of the boosted status, as REST does', async () => {
    const original = await post(carol.client, { status: 'boost me' });
    expect((await bob.client.post(`/api/v1/statuses/${original.id}/favourite`)).status).toBe(200);
    const bobs = await openSocket(inst, bob.token, { query: 'stream=user' });
    const boost = await alice.client.post(`/api/v1/statuses/${original.id}/reblog`);
    expect(boost.status).toBe(200);
    const event = await bobs.next(on(['user'], 'update', boost.body.id));
    expect(event.payload.reblog.id).toBe(original.id);
    expect(event.payload.favourited).toBe(true);
    expect(event.payload.reblog.favourited).toBe(true);
    expect(event.raw).toBe((await bob.client.get(`/api/v1/statuses/${boost.body.id}`)).text);
  });

  it('follows language choices: a followed account in another language stays out of home and the user stream', async () => {
    const dave = await inst.createUser('dave');
    await follow(dave.client, alice.accountId, { languages: ['de'] });
    const daves = await openSocket(inst, dave.token, { query: 'stream=user' });
    const english = await post(alice.client, { status: 'in english', language: 'en' });
    const german = await post(alice.client, { status: 'auf deutsch', language: 'de' });
    await daves.next(on(['user'], 'update', german.id));
    await settle();
    expect(daves.matching(on(['user'], 'update', english.id))).toEqual([]);
  });

  it('status.update and delete reach the streams that got the status', async () => {
    const bobs = await openSocket(inst, bob.token, { query: 'stream=user' });
    await bobs.subscribe('public');
    const status = await post(alice.client, { status: 'first version' });
    await bobs.next(on(['user'], 'update', status.id));
    await bobs.next(on(['public'], 'update', status.id));
    const edit = await alice.client.put(`/api/v1/statuses/${status.id}`, { status: 'second version' });
    expect(edit.status).toBe(200);
    const updated = await bobs.next(on(['user'], 'status.update', status.id));
    expect(updated.payload.content).toContain('second version');
    expect(updated.payload.edited_at).not.toBeNull();
    await bobs.next(on(['public'], 'status.update', status.id));
    expect((await alice.client.delete(`/api/v1/statuses/${status.id}`)).status).toBe(200);
    const deleted = await bobs.next(on(['user'], 'delete', status.id));
    // The payload of a delete is the id itself, a string.
    expect(deleted.raw).toBe(status.id);
    await bobs.next(on(['public'], 'delete', status.id));
  });

  it('public, public:local, public:remote and their media variants by origin and media', async () => {
    const socket = await openSocket(inst, carol.token);
    for (const stream of ['public', 'public:local', 'public:remote', 'public:media', 'public:local:media', 'public:remote:media']) await socket.subscribe(stream);
    const local = await post(alice.client, { status: 'local words' });
    const remoteAccount = seedRemoteAccount(inst, 'faraway', 'remote.example');
    const remote = seedRemoteStatus(inst, remoteAccount, { content: '<p>remote words</p>' });
    const remoteMedia = seedRemoteStatus(inst, remoteAccount, { content: '<p>a picture</p>', media: true });
    await socket.next(on(['public'], 'update', local.id));
    await socket.next(on(['public:local'], 'update', local.id));
    await socket.next(on(['public'], 'update', remote));
    await socket.next(on(['public:remote'], 'update', remote));
    const media = await socket.next(on(['public:media'], 'update', remoteMedia));
    expect(media.payload.media_attachments).toHaveLength(1);
    await socket.next(on(['public:remote:media'], 'update', remoteMedia));
    await settle();
    const streamsOf = (id: string) => socket.matching((e) => e.payload?.id === id).map((e) => e.stream.join(':')).sort();
    expect(streamsOf(local.id)).toEqual(['public', 'public:local']);
    expect(streamsOf(remote)).toEqual(['public', 'public:remote']);
    expect(streamsOf(remoteMedia)).toEqual(['public', 'public:media', 'public:remote', 'public:remote:media']);
    // Public streams send the status as an anonymous viewer sees it (no per-viewer flags), as Mastodon does.
    const event = socket.matching(on(['public'], 'update', local.id))[0]!;
    expect(event.raw).toBe((await inst.anon.get(`/api/v1/statuses/${local.id}`)).text);
  });

  it('public streams leave out unlisted, private and direct statuses, boosts and replies to others', async () => {
    const socket = await openSocket(inst, bob.token, { query: 'stream=public' });
    await socket.subscribe('user');
    const unlisted = await post(alice.client, { status: 'quiet', visibility: 'unlisted' });
    const priv = await post(alice.client, { status: 'followers only', visibility: 'private' });
    const other = await post(carol.client, { status: 'a thought' });
    const reply = await post(alice.client, { status: '@carol indeed', in_reply_to_id: other.id });
    const selfReply = await post(alice.client, { status: 'and a thread', in_reply_to_id: unlisted.id });
    const boost = await alice.client.post(`/api/v1/statuses/${other.id}/reblog`);
    // Bob's home gets the unlisted and private ones (he follows alice).
    await socket.next(on(['user'], 'update', unlisted.id));
    await socket.next(on(['user'], 'update', priv.id));
    await socket.next(on(['user'], 'update', boost.body.id));
    await socket.next(on(['public'], 'update', other.id));
    await socket.next(on(['public'], 'update', selfReply.id));
    await settle();
    const publicIds = socket.matching((e) => e.stream[0] === 'public').map((e) => e.payload.id);
    expect(publicIds).not.toContain(unlisted.id);
    expect(publicIds).not.toContain(priv.id);
    expect(publicIds).not.toContain(reply.id);
    expect(publicIds).not.toContain(boost.body.id);
  });

  it('hashtag and hashtag:local: tagged public statuses, replies included, by origin', async () => {
    const socket = await openSocket(inst, carol.token);
    await socket.subscribe('hashtag', { tag: '#Gardening' });
    await socket.subscribe('hashtag:local', { tag: 'gardening' });
    const other = await post(carol.client, { status: 'roses' });
    const local = await post(alice.client, { status: '@carol nice #gardening', in_reply_to_id: other.id });
    const remote = seedRemoteStatus(inst, seedRemoteAccount(inst, 'gardener', 'green.example'), { content: '<p>#gardening</p>', tags: ['gardening'] });
    const untagged = await post(alice.client, { status: 'no tag here' });
    await socket.next(on(['hashtag', '#Gardening'], 'update', local.id));
    await socket.next(on(['hashtag:local', 'gardening'], 'update', local.id));
    await socket.next(on(['hashtag', '#Gardening'], 'update', remote));
    await settle();
    expect(socket.matching(on(['hashtag:local', 'gardening'], 'update', remote))).toEqual([]);
    expect(socket.matching((e) => e.payload?.id === untagged.id)).toEqual([]);
  });

  it('notification on user and user:notification; a user stream without a notifications scope gets none', async () => {
    const full = await openSocket(inst, bob.token, { query: 'stream=user' });
    const only = await openSocket(inst, inst.tokenFor(bob, 'read:notifications'), { query: 'stream=user:notification' });
    const statusesOnly = await openSocket(inst, inst.tokenFor(bob, 'read:statuses'), { query: 'stream=user' });
    const mention = await post(carol.client, { status: '@bob hello there' });
    const a = await full.next((e) => e.event === 'notification' && e.payload.status?.id === mention.id);
    expect(a.stream).toEqual(['user']);
    expect(a.payload.type).toBe('mention');
    expect(a.payload.account.id).toBe(carol.accountId);
    const b = await only.next((e) => e.event === 'notification' && e.payload.status?.id === mention.id);
    expect(b.stream).toEqual(['user:notification']);
    // The same notification REST lists.
    const listed = await bob.client.get(`/api/v1/notifications/${a.payload.id}`);
    expect(listed.status).toBe(200);
    expect(a.payload).toEqual(listed.body);
    // A follow notification has no status.
    await follow(carol.client, bob.accountId);
    const followed = await only.next((e) => e.event === 'notification' && e.payload.type === 'follow');
    expect(followed.payload.status).toBeUndefined();
    await settle();
    expect(statusesOnly.matching((e) => e.event === 'notification')).toEqual([]);
    // The user:notification stream carries notifications only.
    expect(only.events.every((e) => e.event === 'notification')).toBe(true);
  });

  it('filters_changed once per change, even for many keywords in one request, without a payload', async () => {
    const socket = await openSocket(inst, carol.token, { query: 'stream=user' });
    const created = await carol.client.post('/api/v2/filters', {
      title: 'noise',
      context: ['home'],
      keywords_attributes: [{ keyword: 'one' }, { keyword: 'two' }, { keyword: 'three' }, { keyword: 'four' }],
    });
    expect(created.status).toBe(200);
    await socket.next((e) => e.event === 'filters_changed');
    const edited = await carol.client.put(`/api/v2/filters/${created.body.id}`, {
      keywords_attributes: created.body.keywords.map((k: { id: string }) => ({ id: k.id, _destroy: true })).concat([{ keyword: 'five' }, { keyword: 'six' }]),
    });
    expect(edited.status).toBe(200);
    await socket.until(() => socket.matching((e) => e.event === 'filters_changed').length >= 2);
    await settle();
    const changes = socket.matching((e) => e.event === 'filters_changed');
    expect(changes).toHaveLength(2);
    expect(changes[0]!.raw).toBeUndefined();
    expect(changes[0]!.stream).toEqual(['user']);
  });
});
