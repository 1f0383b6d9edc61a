import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../helpers/instance.js';
import { FakeRemote, MASTODON_CONTEXT, PUBLIC, mastodonPerson, type FakeActor } from './fake-remote.js';
import { eventually, startFederated } from './helpers.js';
import { drain } from './replay.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;
interface FeaturedTag { id: string; name: string }
interface Status { id: string; uri: string }

describe('featured tags federate as Add/Remove of a Hashtag, the way Mastodon sends them', () => {
  let a: Inst;
  let b: Inst;
  let masto: FakeRemote;
  let alice: TestUser;
  let bob: TestUser;
  let mona: FakeActor;
  let dave: FakeActor;
  let aliceUri = '';
  let aliceOnB = '';
  let monaOnA = '';

  beforeAll(async () => {
    a = await startFederated('127.0.0.40');
    b = await startFederated('127.0.0.41');
    masto = await FakeRemote.start('127.0.0.42');
    alice = await a.createUser('alice');
    bob = await b.createUser('bob');
    aliceUri = `${a.origin}/users/alice`;
    mona = await masto.actor('/users/mona', (x) => mastodonPerson(masto, x, 'mona'));
    dave = await masto.actor('/users/dave', (x) => mastodonPerson(masto, x, 'dave'));
    const empty = (path: string) => masto.serve(path, { '@context': MASTODON_CONTEXT, id: masto.url(path), type: 'OrderedCollection', totalItems: 0, orderedItems: [] });
    for (const who of ['mona', 'dave']) {
      empty(`/users/${who}/collections/featured`);
      empty(`/users/${who}/collections/tags`);
    }
    // Bob (on B) and Mona (a Mastodon account) follow Alice; Dave is known to A as well.
    const res = await bob.client.get(`/api/v2/search?q=${encodeURIComponent(`alice@${a.domain}`)}&resolve=true&type=accounts`);
    aliceOnB = (res.body as { accounts: { id: string }[] }).accounts[0]?.id ?? '';
    expect(aliceOnB).not.toBe('');
    expect((await bob.client.post(`/api/v1/accounts/${aliceOnB}/follow`)).status).toBe(200);
    for (const [who, n] of [[mona, 1], [dave, 2]] as const) {
      expect(await masto.send(a.origin, who, { '@context': 'https://www.w3.org/ns/activitystreams', id: masto.url(`/follows/${n}`), type: 'Follow', actor: who.id, object: aliceUri })).toBe(202);
    }
    await drain(a);
    await eventually(async () => ((await alice.client.get(`/api/v1/accounts/${alice.accountId}/followers`)).body as unknown[]).length === 3);
    const lookup = await alice.client.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(`mona@${masto.domain}`)}`);
    monaOnA = (lookup.body as { id: string }).id;
    expect(monaOnA).toBeTruthy();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await masto.close();
  });

  const tagsOf = async (user: TestUser, accountId: string) => ((await user.client.get(`/api/v1/accounts/${accountId}/featured_tags`)).body as FeaturedTag[]).map((t) => t.name).sort();
  const hashtagDeliveries = (type: string) => masto.deliveries(type).filter((d) => (d.object as { type?: string } | undefined)?.type === 'Hashtag');

  it('a local featured tag reaches the other instance as Add(Hashtag) and its removal as Remove', async () => {
    expect(await tagsOf(bob, aliceOnB)).toEqual([]);
    expect((await alice.client.post('/api/v1/featured_tags', { name: '#Cats' })).status).toBe(200);
    expect((await alice.client.post('/api/v1/tags/dogs/feature')).status).toBe(200);
    await eventually(async () => JSON.stringify(await tagsOf(bob, aliceOnB)) === JSON.stringify(['Cats', 'dogs']));

    const own = (await alice.client.get('/api/v1/featured_tags')).body as FeaturedTag[];
    expect((await alice.client.delete(`/api/v1/featured_tags/${own.find((t) => t.name === 'Cats')?.id}`)).status).toBe(200);
    expect((await alice.client.post('/api/v1/tags/dogs/unfeature')).status).toBe(200);
    await eventually(async () => (await tagsOf(bob, aliceOnB)).length === 0);
  });

  it('what Mastodon receives: Add/Remove of {type: Hashtag, href, name} on the featured collection, signed, and no Update(actor)', async () => {
    const adds = await eventually(() => (hashtagDeliveries('Add').length === 2 ? hashtagDeliveries('Add') : null));
    const removes = await eventually(() => (hashtagDeliveries('Remove').length === 2 ? hashtagDeliveries('Remove') : null));
    // One delivery per server (its shared inbox), though two of its accounts follow Alice.
    expect(masto.received.filter((r) => r.method === 'POST' && r.path !== '/inbox')).toEqual([]);
    const cats = adds.find((d) => (d.object as { name: string }).name === '#Cats');
    expect(cats).toMatchObject({ type: 'Add', actor: aliceUri, target: `${aliceUri}/collections/featured`, object: { type: 'Hashtag', href: `${a.origin}/@alice/tagged/Cats`, name: '#Cats' } });
    expect(cats?.['@context']).toContainEqual({ Hashtag: 'as:Hashtag' });
    // Signed as a Linked Data document too (the Hashtag is part of what was signed).
    expect(cats?.signature).toMatchObject({ type: 'RsaSignature2017' });
    expect(removes.map((d) => (d.object as { name: string }).name).sort()).toEqual(['#Cats', '#dogs']);
    expect(removes[0]).toMatchObject({ type: 'Remove', actor: aliceUri, target: `${aliceUri}/collections/featured` });
    expect(masto.deliveries('Update')).toEqual([]);
  });

  /** An Add or Remove of a Hashtag as Mastodon writes it (no id; target the featured collection). */
  const hashtag = (type: 'Add' | 'Remove', actor: FakeActor, object: Record<string, unknown>, target = `${actor.id}/collections/featured`) => ({ '@context': MASTODON_CONTEXT, type, actor: actor.id, target, object: { type: 'Hashtag', ...object } });

  it('an inbound Add of a Hashtag (Mastodon-shaped) features the tag on the sender; Remove takes it off', async () => {
    expect(await masto.send(a.origin, mona, hashtag('Add', mona, { href: masto.url('/@mona/tagged/Painting'), name: '#Painting' }))).toBe(202);
    expect(await tagsOf(alice, monaOnA)).toEqual(['Painting']);
    // The featuredTags collection as target, and a name read from href alone, to a personal inbox.
    expect(await masto.send(a.origin, mona, hashtag('Add', mona, { href: masto.url('/tags/sketch') }, `${mona.id}/collections/tags`), { path: '/users/alice/inbox' })).toBe(202);
    expect(await tagsOf(alice, monaOnA)).toEqual(['Painting', 'sketch']);
    // Adding again changes nothing; Remove matches the name in any case.
    expect(await masto.send(a.origin, mona, hashtag('Add', mona, { href: masto.url('/tags/painting'), name: '#painting' }))).toBe(202);
    expect(await masto.send(a.origin, mona, hashtag('Remove', mona, { href: masto.url('/tags/painting'), name: '#PAINTING' }), { spec: 'rfc9421' })).toBe(202);
    expect(await tagsOf(alice, monaOnA)).toEqual(['sketch']);
  });

  it('refuses a Hashtag Add signed by another actor, and ignores one on another account\'s collection', async () => {
    const forged = hashtag('Add', mona, { href: masto.url('/tags/forged'), name: '#forged' });
    expect(await masto.send(a.origin, mona, forged, { signAs: dave })).toBe(401);
    expect(await masto.send(a.origin, mona, forged, { badDigest: true })).toBe(401);
    expect(await masto.send(a.origin, dave, hashtag('Add', dave, { href: masto.url('/tags/forged'), name: '#forged' }, `${mona.id}/collections/featured`))).toBe(202);
    expect(await tagsOf(alice, monaOnA)).toEqual(['sketch']);
  });

  it('a Hashtag naming no tag makes the sender\'s featured tags be fetched again', async () => {
    masto.serve('/users/mona/collections/tags', {
      '@context': MASTODON_CONTEXT,
      id: `${mona.id}/collections/tags`,
      type: 'Collection',
      totalItems: 2,
      items: [
        { type: 'Hashtag', href: masto.url('/@mona/tagged/watercolour'), name: '#watercolour' },
        { type: 'Hashtag', href: masto.url('/@mona/tagged/sketch'), name: '#sketch' },
      ],
    });
    expect(await masto.send(a.origin, mona, hashtag('Add', mona, { href: masto.url('/') }))).toBe(202);
    await eventually(async () => JSON.stringify(await tagsOf(alice, monaOnA)) === JSON.stringify(['sketch', 'watercolour']));
    // An object Fedify does read (a tag page's URL) on the featuredTags collection: the same.
    masto.serve('/users/mona/collections/tags', { '@context': MASTODON_CONTEXT, id: `${mona.id}/collections/tags`, type: 'Collection', totalItems: 0, items: [] });
    const remove = { '@context': MASTODON_CONTEXT, id: masto.url('/removes/1'), type: 'Remove', actor: mona.id, object: masto.url('/tags/watercolour'), target: `${mona.id}/collections/tags` };
    expect(await masto.send(a.origin, mona, remove)).toBe(202);
    await drain(a);
    await eventually(async () => (await tagsOf(alice, monaOnA)).length === 0);
  });

  it('pins (Add/Remove of a status on the featured collection) still work', async () => {
    const id = `${mona.id}/statuses/1`;
    const note = { id, type: 'Note', attributedTo: mona.id, to: [PUBLIC], cc: [`${mona.id}/followers`], content: '<p>pin me</p>', published: new Date().toISOString(), url: masto.url('/@mona/1') };
    expect(await masto.send(a.origin, mona, { '@context': MASTODON_CONTEXT, id: `${id}/activity`, type: 'Create', actor: mona.id, to: note.to, cc: note.cc, object: note })).toBe(202);
    await drain(a);
    const pinned = async () => ((await alice.client.get(`/api/v1/accounts/${monaOnA}/statuses?pinned=true`)).body as Status[]).map((s) => s.uri);
    expect(await masto.send(a.origin, mona, { '@context': MASTODON_CONTEXT, type: 'Add', actor: mona.id, object: id, target: `${mona.id}/collections/featured` })).toBe(202);
    await drain(a);
    expect(await pinned()).toEqual([id]);
    expect(await masto.send(a.origin, mona, { '@context': MASTODON_CONTEXT, type: 'Remove', actor: mona.id, object: id, target: `${mona.id}/collections/featured` })).toBe(202);
    await drain(a);
    expect(await pinned()).toEqual([]);
  });
});
