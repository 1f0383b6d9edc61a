import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { ids, links, post, seedMedia, seedRemoteAccount, seedRemoteStatus, tagId } from './helpers.js';

describe('public and hashtag timelines', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let pub: any;
  let unlisted: any;
  let priv: any;
  let reply: any;
  let selfReply: any;
  let media: any;
  let remote: string;
  let cats: any;
  let catsDogs: any;
  let dogs: any;
  let catsBirds: any;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    pub = await post(alice.client, { status: 'public words' });
    unlisted = await post(alice.client, { status: 'unlisted words', visibility: 'unlisted' });
    priv = await post(alice.client, { status: 'private words', visibility: 'private' });
    reply = await post(bob.client, { status: '@alice a reply', in_reply_to_id: pub.id });
    selfReply = await post(alice.client, { status: 'my own thread', in_reply_to_id: pub.id });
    media = await post(alice.client, { status: 'with a picture', media_ids: [seedMedia(inst, alice.accountId)] });
    await bob.client.post(`/api/v1/statuses/${pub.id}/reblog`);
    cats = await post(alice.client, { status: 'I like #cats' });
    catsDogs = await post(bob.client, { status: '#Cats and #dogs' });
    dogs = await post(bob.client, { status: 'only #dogs' });
    catsBirds = await post(alice.client, { status: '#cats and #birds', media_ids: [seedMedia(inst, alice.accountId)] });
    await post(alice.client, { status: 'quiet #cats', visibility: 'unlisted' });
    await post(alice.client, { status: 'secret #cats', visibility: 'private' });
    const stranger = seedRemoteAccount(inst, 'far', 'remote.example');
    remote = seedRemoteStatus(inst, stranger, { content: '<p>from afar #cats</p>', tagIds: [tagId(inst, 'cats')] });
  });
  afterAll(async () => {
    await inst.close();
  });

  it('public: public originals, no boosts, no replies to others, newest first, for anyone', async () => {
    const list = await ids(inst.anon, '/api/v1/timelines/public?limit=40');
    expect(list).toEqual([remote, catsBirds.id, dogs.id, catsDogs.id, cats.id, media.id, selfReply.id, pub.id]);
    expect(list).not.toContain(unlisted.id);
    expect(list).not.toContain(priv.id);
    expect(list).not.toContain(reply.id);
    // The same for a signed-in viewer, with viewer flags.
    const res = await alice.client.get('/api/v1/timelines/public?limit=2');
    expect(res.body.map((s: { id: string }) => s.id)).toEqual([remote, catsBirds.id]);
    expect(res.body[1].favourited).toBe(false);
    expect(links(res.headers.get('link')).next?.searchParams.get('max_id')).toBe(catsBirds.id);
  });

  it('public: local, remote and only_media', async () => {
    expect(await ids(inst.anon, '/api/v1/timelines/public?local=true&limit=40')).not.toContain(remote);
    expect(await ids(inst.anon, '/api/v1/timelines/public?remote=true')).toEqual([remote]);
    expect(await ids(inst.anon, '/api/v1/timelines/public?only_media=true')).toEqual([catsBirds.id, media.id]);
    expect(await ids(inst.anon, '/api/v1/timelines/public?local=1&only_media=1')).toEqual([catsBirds.id, media.id]);
    // Mastodon's boolean casting: 'false' and '0' are false.
    expect((await ids(inst.anon, '/api/v1/timelines/public?only_media=false&local=0&limit=40')).length).toBe(8);
    // Both at once narrow nothing (Mastodon's PublicFeed): everything, as without either.
    expect(await ids(inst.anon, '/api/v1/timelines/public?local=true&remote=true&limit=40')).toEqual(await ids(inst.anon, '/api/v1/timelines/public?limit=40'));
    expect(await ids(inst.anon, '/api/v1/timelines/public?local=true&remote=true&limit=40')).toContain(remote);
  });

  it('public: pages with since_id and min_id', async () => {
    expect(await ids(inst.anon, `/api/v1/timelines/public?since_id=${catsDogs.id}`)).toEqual([remote, catsBirds.id, dogs.id]);
    expect(await ids(inst.anon, `/api/v1/timelines/public?min_id=${catsDogs.id}&limit=2`)).toEqual([catsBirds.id, dogs.id]);
  });

  it('tag: public statuses with the tag, case-insensitively, replies included', async () => {
    expect(await ids(inst.anon, '/api/v1/timelines/tag/cats')).toEqual([remote, catsBirds.id, catsDogs.id, cats.id]);
    expect(await ids(inst.anon, '/api/v1/timelines/tag/CATS')).toEqual([remote, catsBirds.id, catsDogs.id, cats.id]);
    const tagged = await post(bob.client, { status: '@alice #cats indeed', in_reply_to_id: cats.id });
    expect((await ids(inst.anon, '/api/v1/timelines/tag/cats'))[0]).toBe(tagged.id);
    await bob.client.delete(`/api/v1/statuses/${tagged.id}`);
  });

  it('tag: any[], all[], none[], local, remote and only_media', async () => {
    expect(await ids(inst.anon, '/api/v1/timelines/tag/cats?any[]=dogs')).toEqual([remote, catsBirds.id, dogs.id, catsDogs.id, cats.id]);
    expect(await ids(inst.anon, '/api/v1/timelines/tag/cats?all[]=dogs')).toEqual([catsDogs.id]);
    expect(await ids(inst.anon, '/api/v1/timelines/tag/cats?none[]=dogs&none[]=birds')).toEqual([remote, cats.id]);
    expect(await ids(inst.anon, '/api/v1/timelines/tag/cats?all[]=nosuchtag')).toEqual([]);
    expect(await ids(inst.anon, '/api/v1/timelines/tag/cats?any[]=nosuchtag')).toEqual([remote, catsBirds.id, catsDogs.id, cats.id]);
    expect(await ids(inst.anon, '/api/v1/timelines/tag/cats?local=true')).toEqual([catsBirds.id, catsDogs.id, cats.id]);
    expect(await ids(inst.anon, '/api/v1/timelines/tag/cats?remote=true')).toEqual([remote]);
    expect(await ids(inst.anon, '/api/v1/timelines/tag/cats?only_media=true')).toEqual([catsBirds.id]);
    expect(await ids(inst.anon, '/api/v1/timelines/tag/cats?limit=1&max_id=' + catsBirds.id)).toEqual([catsDogs.id]);
  });

  it('tag: an unknown hashtag is 404', async () => {
    const res = await inst.anon.get('/api/v1/timelines/tag/neverused');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Record not found' });
  });

  it('is driven by masto', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: bob.token });
    const local = await masto.v1.timelines.public.list({ local: true, onlyMedia: true });
    expect(local.map((s) => s.id)).toEqual([catsBirds.id, media.id]);
    const tagged = await masto.v1.timelines.tag.$select('cats').list({ limit: 2 });
    expect(tagged.map((s) => s.id)).toEqual([remote, catsBirds.id]);
  });

  it('checks a token when one is given', async () => {
    expect((await inst.anon.get('/api/v1/timelines/public', { token: 'bad' })).status).toBe(401);
    const wrongScope = inst.tokenFor(alice, 'write:statuses');
    expect((await inst.anon.get('/api/v1/timelines/public', { token: wrongScope })).status).toBe(403);
    expect((await inst.anon.get('/api/v1/timelines/tag/cats', { token: wrongScope })).status).toBe(403);
  });
});
