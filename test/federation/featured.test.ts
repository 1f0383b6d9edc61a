import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../helpers/instance.js';
import { FakeRemote, MASTODON_CONTEXT, PUBLIC, mastodonPerson, type FakeActor } from './fake-remote.js';
import { eventually, startFederated } from './helpers.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;
interface Status { id: string; uri: string; content: string; poll: { options: { title: string }[] } | null }
interface FeaturedTag { id: string; name: string; url: string; statuses_count: string; last_status_at: string | null }
interface ApCollection { id: string; type: string; totalItems: number; items?: Record<string, unknown>[]; orderedItems?: Record<string, unknown>[] }

const AS = 'https://www.w3.org/ns/activitystreams';

/** A document without its @context, to embed in another. */
function embedded(doc: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).filter(([k]) => k !== '@context'));
}

/** GET of an ActivityPub document as a remote server would fetch it (unsigned). */
async function fetchAp(url: string): Promise<{ status: number; type: string; body: ApCollection | null }> {
  const res = await fetch(url, { headers: { accept: 'application/activity+json' } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: res.ok ? ((await res.json()) as ApCollection) : null };
}

describe('featured collections: pins and featured tags served and synchronised', () => {
  let a: Inst;
  let b: Inst;
  let remote: FakeRemote;
  let alice: TestUser;
  let bob: TestUser;
  let mona: FakeActor;
  let aliceOnB = '';
  const pinned: Status[] = [];
  beforeAll(async () => {
    a = await startFederated('127.0.0.10');
    b = await startFederated('127.0.0.11');
    remote = await FakeRemote.start('127.0.0.12');
    alice = await a.createUser('alice');
    bob = await b.createUser('bob');
    const plain = await alice.client.post('/api/v1/statuses', { status: 'my best #cats picture', visibility: 'public' });
    const poll = await alice.client.post('/api/v1/statuses', { status: 'cats or dogs?', visibility: 'public', poll: { options: ['cats', 'dogs'], expires_in: 3600 } });
    await alice.client.post('/api/v1/statuses', { status: 'not pinned', visibility: 'public' });
    for (const created of [plain, poll]) {
      expect(created.status).toBe(200);
      const status = created.body as Status;
      expect((await alice.client.post(`/api/v1/statuses/${status.id}/pin`)).status).toBe(200);
      pinned.push(status);
    }
    for (const name of ['cats', 'dogs']) expect((await alice.client.post('/api/v1/featured_tags', { name })).status).toBe(200);
    mona = await remote.actor('/users/mona', (x) => mastodonPerson(remote, x, 'mona'));
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await remote.close();
  });

  it('serves the featured tags collection as Hashtags (activity+json), 404 for an unknown actor', async () => {
    const res = await fetchAp(`${a.origin}/users/alice/collections/tags`);
    expect(res.status).toBe(200);
    expect(res.type).toContain('application/activity+json');
    expect(res.body?.id).toBe(`${a.origin}/users/alice/collections/tags`);
    expect(res.body?.type).toMatch(/Collection$/);
    expect(res.body?.totalItems).toBe(2);
    const items = res.body?.items ?? res.body?.orderedItems ?? [];
    // Fedify writes each Hashtag (a Link) with its own @context; the shape is Mastodon's.
    expect(items).toMatchObject([
      { type: 'Hashtag', href: `${a.origin}/@alice/tagged/cats`, name: '#cats' },
      { type: 'Hashtag', href: `${a.origin}/@alice/tagged/dogs`, name: '#dogs' },
    ]);
    // The actor document points at it.
    const actor = (await (await fetch(`${a.origin}/users/alice`, { headers: { accept: 'application/activity+json' } })).json()) as { featuredTags: string };
    expect(actor.featuredTags).toBe(`${a.origin}/users/alice/collections/tags`);
    expect((await fetchAp(`${a.origin}/users/nobody/collections/tags`)).status).toBe(404);
  });

  it('serves the featured collection with the pinned Note and Question', async () => {
    const res = await fetchAp(`${a.origin}/users/alice/collections/featured`);
    expect(res.status).toBe(200);
    expect(res.type).toContain('application/activity+json');
    expect(res.body?.totalItems).toBe(2);
    const items = res.body?.orderedItems ?? res.body?.items ?? [];
    expect(items.map((i) => i.type).sort()).toEqual(['Note', 'Question']);
    expect(items.map((i) => i.id).sort()).toEqual(pinned.map((s) => s.uri).sort());
  });

  it('a resolved remote account brings its pinned statuses (a poll too) and featured tags', async () => {
    const res = await bob.client.get(`/api/v2/search?q=${encodeURIComponent(`alice@${a.domain}`)}&resolve=true&type=accounts`);
    expect(res.status).toBe(200);
    aliceOnB = (res.body as { accounts: { id: string }[] }).accounts[0]?.id ?? '';
    expect(aliceOnB).not.toBe('');
    const pins = await eventually(async () => {
      const list = (await bob.client.get(`/api/v1/accounts/${aliceOnB}/statuses?pinned=true`)).body as Status[];
      return list.length === 2 ? list : null;
    });
    expect(pins.map((s) => s.uri).sort()).toEqual(pinned.map((s) => s.uri).sort());
    expect(pins.find((s) => s.poll)?.poll?.options.map((o) => o.title)).toEqual(['cats', 'dogs']);
    const tags = await eventually(async () => {
      const list = (await bob.client.get(`/api/v1/accounts/${aliceOnB}/featured_tags`)).body as FeaturedTag[];
      return list.length === 2 ? list : null;
    });
    expect(tags.map((t) => t.name)).toEqual(['cats', 'dogs']);
    // Counted from what B knows of her: the pinned post carries #cats.
    expect(tags[0]?.statuses_count).toBe('1');
    expect(tags[0]?.url).toBe(`${b.origin}/@alice@${encodeURIComponent(a.domain)}/tagged/cats`);
    // Anonymous readers see the same (the endpoint is public).
    expect(((await b.anon.get(`/api/v1/accounts/${aliceOnB}/featured_tags`)).body as FeaturedTag[]).length).toBe(2);
  });

  it('a featured tag change reaches followers (as Add/Remove of a Hashtag) and their copy follows', async () => {
    expect((await bob.client.post(`/api/v1/accounts/${aliceOnB}/follow`)).status).toBe(200);
    await eventually(async () => ((await alice.client.get(`/api/v1/accounts/${alice.accountId}/followers`)).body as unknown[]).length === 1);
    const own = (await alice.client.get('/api/v1/featured_tags')).body as FeaturedTag[];
    const dogs = own.find((t) => t.name === 'dogs');
    expect((await alice.client.delete(`/api/v1/featured_tags/${dogs?.id}`)).status).toBe(200);
    await eventually(async () => {
      const list = (await bob.client.get(`/api/v1/accounts/${aliceOnB}/featured_tags`)).body as FeaturedTag[];
      return list.length === 1 && list[0]?.name === 'cats';
    });
  });

  describe('a Mastodon-like remote whose featured collection mixes URIs, Creates and others\' Notes', () => {
    const note = (path: string, author: string, text: string) => ({
      '@context': MASTODON_CONTEXT,
      id: remote.url(path),
      type: 'Note',
      attributedTo: author,
      content: `<p>${text}</p>`,
      published: '2026-01-02T03:04:05Z',
      url: remote.url(path),
      to: [PUBLIC],
      cc: [`${author}/followers`],
    });
    const featured = (items: unknown[]) => ({ '@context': MASTODON_CONTEXT, id: remote.url('/users/mona/collections/featured'), type: 'OrderedCollection', totalItems: items.length, orderedItems: items });
    const featuredGets = () => remote.received.filter((r) => r.method === 'GET' && r.path === '/users/mona/collections/featured');
    let monaOnB = '';
    let byUri: ReturnType<typeof note>;
    let wrapped: ReturnType<typeof note>;

    beforeAll(() => {
      byUri = note('/users/mona/statuses/1', mona.id, 'pinned by reference');
      wrapped = note('/users/mona/statuses/2', mona.id, 'pinned inside a Create');
      const wrappedBody = embedded(wrapped);
      const foreign = embedded(note('/users/other/statuses/3', remote.url('/users/other'), 'someone else'));
      remote.serve('/users/mona/statuses/1', byUri);
      remote.serve('/users/mona/collections/featured', featured([byUri.id, { id: `${wrapped.id}/activity`, type: 'Create', actor: mona.id, object: wrappedBody }, foreign]));
      remote.serve('/users/mona/collections/tags', {
        '@context': MASTODON_CONTEXT,
        id: remote.url('/users/mona/collections/tags'),
        type: 'Collection',
        totalItems: 3,
        items: [
          { type: 'Hashtag', href: remote.url('/@mona/tagged/painting'), name: '#Painting' },
          { type: 'Hashtag', href: remote.url('/@mona/tagged/art'), name: '#art' },
          { type: 'Hashtag', href: remote.url('/@mona/tagged/x'), name: '#not a tag' },
        ],
      });
    });

    it('stores the URI and Create-wrapped Notes as her pins (signed GETs), ignores another author\'s Note', async () => {
      const res = await bob.client.get(`/api/v2/search?q=${encodeURIComponent(mona.id)}&resolve=true&type=accounts`);
      monaOnB = (res.body as { accounts: { id: string }[] }).accounts[0]?.id ?? '';
      expect(monaOnB).not.toBe('');
      const pins = await eventually(async () => {
        const list = (await bob.client.get(`/api/v1/accounts/${monaOnB}/statuses?pinned=true`)).body as Status[];
        return list.length === 2 ? list : null;
      });
      expect(pins.map((s) => s.uri).sort()).toEqual([byUri.id, wrapped.id]);
      const tags = await eventually(async () => {
        const list = (await bob.client.get(`/api/v1/accounts/${monaOnB}/featured_tags`)).body as FeaturedTag[];
        return list.length === 2 ? list : null;
      });
      expect(tags.map((t) => t.name)).toEqual(['Painting', 'art']);
      expect(tags.every((t) => t.statuses_count === '0' && t.last_status_at === null)).toBe(true);
      // The other author's Note was not stored at all.
      const search = await bob.client.get(`/api/v2/search?q=${encodeURIComponent(remote.url('/users/other/statuses/3'))}&type=statuses`);
      expect((search.body as { statuses: unknown[] }).statuses).toEqual([]);
      expect(featuredGets()).toHaveLength(1);
      expect(featuredGets()[0]?.headers.signature).toMatch(/keyId="[^"]+"/);
    });

    it('activities from her do not fetch again; her own Update(actor) re-synchronises', async () => {
      // A Follow refreshes its sender (storeActor) like every activity does.
      const follow = { '@context': AS, id: remote.url('/follows/1'), type: 'Follow', actor: mona.id, object: `${b.origin}/users/bob` };
      expect(await remote.send(b.origin, mona, follow)).toBe(202);
      await eventually(() => remote.deliveries('Accept').length > 0);
      expect(featuredGets()).toHaveLength(1);
      // She unpins the wrapped Note and stops featuring #art; then updates her profile.
      remote.serve('/users/mona/collections/featured', featured([byUri.id]));
      remote.serve('/users/mona/collections/tags', { '@context': MASTODON_CONTEXT, id: remote.url('/users/mona/collections/tags'), type: 'Collection', totalItems: 1, items: [{ type: 'Hashtag', href: remote.url('/@mona/tagged/painting'), name: '#Painting' }] });
      const person = embedded(mastodonPerson(remote, mona, 'mona'));
      const update = { '@context': MASTODON_CONTEXT, id: remote.url('/users/mona#updates/1'), type: 'Update', actor: mona.id, to: [PUBLIC], object: person };
      expect(await remote.send(b.origin, mona, update)).toBe(202);
      await eventually(async () => {
        const list = (await bob.client.get(`/api/v1/accounts/${monaOnB}/statuses?pinned=true`)).body as Status[];
        return list.length === 1 && list[0]?.uri === byUri.id;
      });
      await eventually(async () => {
        const list = (await bob.client.get(`/api/v1/accounts/${monaOnB}/featured_tags`)).body as FeaturedTag[];
        return list.length === 1 && list[0]?.name === 'Painting';
      });
      expect(featuredGets()).toHaveLength(2);
    });

    it('fetches at most ten bare URIs of a long featured collection, and no private Note becomes a pin', async () => {
      const many = await remote.actor('/users/many', (x) => mastodonPerson(remote, x, 'many'));
      const uris: string[] = [];
      for (let i = 1; i <= 15; i++) {
        const path = `/users/many/statuses/${i}`;
        remote.serve(path, note(path, many.id, `post ${i}`));
        uris.push(remote.url(path));
      }
      const secret = embedded({ ...note('/users/many/statuses/99', many.id, 'followers only'), to: [`${many.id}/followers`], cc: [] });
      remote.serve('/users/many/collections/featured', { '@context': MASTODON_CONTEXT, id: remote.url('/users/many/collections/featured'), type: 'OrderedCollection', totalItems: 16, orderedItems: [secret, ...uris] });
      const res = await bob.client.get(`/api/v2/search?q=${encodeURIComponent(many.id)}&resolve=true&type=accounts`);
      const manyOnB = (res.body as { accounts: { id: string }[] }).accounts[0]?.id ?? '';
      const pins = await eventually(async () => {
        const list = (await bob.client.get(`/api/v1/accounts/${manyOnB}/statuses?pinned=true`)).body as Status[];
        return list.length > 0 ? list : null;
      });
      // Pins are written once, at the end of the sync: what was fetched is all there is.
      const fetched = remote.received.filter((r) => r.method === 'GET' && r.path.startsWith('/users/many/statuses/'));
      // Ten documents at most: the collection and nine notes.
      expect(fetched.length).toBe(9);
      expect(pins.length).toBe(9);
      expect(pins.map((s) => s.uri)).not.toContain(remote.url('/users/many/statuses/99'));
      expect(pins.map((s) => s.uri).sort()).toEqual(uris.slice(0, 9).sort());
    });
  });
});
