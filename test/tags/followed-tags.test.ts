import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followersOfTags } from '../../api/core/tags/tags.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { count } from '../suggestions/helpers.js';

/** The Link header's `rel` URL as a path on the instance. */
function linkPath(link: string | null, rel: 'next' | 'prev'): string | null {
  const url = new RegExp(`<([^>]+)>; rel="${rel}"`).exec(link ?? '')?.[1];
  if (!url) return null;
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

describe('followed tags', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    expect((await bob.client.post('/api/v1/statuses', { status: 'hello #Caturday' })).status).toBe(200);
  });
  afterAll(async () => {
    await inst.close();
  });

  it('GET /api/v1/tags/:name shows a tag, case-insensitive; following and featuring only for a signed-in viewer', async () => {
    const anon = await inst.anon.get('/api/v1/tags/caturday');
    expect(anon.status).toBe(200);
    expect(anon.body).toEqual({ id: expect.any(String), name: 'Caturday', url: `${inst.url}/tags/Caturday`, history: expect.any(Array) });
    expect(anon.body.id).not.toBe('');
    expect(anon.body.history).toHaveLength(7);
    expect(anon.body.history[0]).toMatchObject({ uses: '1', accounts: '1' });
    const signed = await alice.client.get('/api/v1/tags/CATURDAY');
    expect(signed.body).toMatchObject({ id: anon.body.id, name: 'Caturday', following: false, featuring: false });
    // A valid name nobody used yet: an unsaved tag, as Mastodon answers it. An invalid one: 404.
    const unused = await alice.client.get('/api/v1/tags/neverused');
    expect(unused.status).toBe(200);
    expect(unused.body).toMatchObject({ id: '', name: 'neverused', following: false });
    expect(count(inst, 'tags', "name_normalized = 'neverused'")).toBe(0);
    expect((await inst.anon.get('/api/v1/tags/not%20a%20tag')).status).toBe(404);
    expect((await inst.anon.get('/api/v1/tags/1234')).status).toBe(404);
  });

  it('following a tag: POST /follow and /unfollow answer the Tag; both are idempotent', async () => {
    const followed = await alice.client.post('/api/v1/tags/caturday/follow');
    expect(followed.status).toBe(200);
    expect(followed.body).toMatchObject({ name: 'Caturday', following: true });
    expect((await alice.client.post('/api/v1/tags/Caturday/follow')).body.following).toBe(true);
    expect(count(inst, 'tag_follows', `account_id = ${alice.accountId}`)).toBe(1);
    expect((await alice.client.get('/api/v1/tags/caturday')).body.following).toBe(true);
    // Following is per user.
    expect((await bob.client.get('/api/v1/tags/caturday')).body.following).toBe(false);

    const unfollowed = await alice.client.post('/api/v1/tags/caturday/unfollow');
    expect(unfollowed.status).toBe(200);
    expect(unfollowed.body.following).toBe(false);
    expect((await alice.client.post('/api/v1/tags/caturday/unfollow')).status).toBe(200);
    expect((await alice.client.post('/api/v1/tags/brandnew/unfollow')).body).toMatchObject({ id: '', following: false });
    expect(count(inst, 'tag_follows', `account_id = ${alice.accountId}`)).toBe(0);

    // Following a tag nobody used yet creates it.
    const fresh = await alice.client.post('/api/v1/tags/Solarpunk/follow');
    expect(fresh.body).toMatchObject({ name: 'Solarpunk', following: true });
    expect(fresh.body.id).not.toBe('');
    expect((await alice.client.post('/api/v1/tags/no%20way/follow')).status).toBe(404);
  });

  it('GET /api/v1/followed_tags lists followed tags, newest first, paged with a Link header', async () => {
    const carol = await inst.createUser('carol');
    for (const name of ['one', 'two', 'three']) expect((await carol.client.post(`/api/v1/tags/${name}/follow`)).status).toBe(200);
    const all = await carol.client.get('/api/v1/followed_tags');
    expect(all.status).toBe(200);
    expect(all.body.map((t: { name: string }) => t.name)).toEqual(['three', 'two', 'one']);
    expect(all.body.every((t: { following: boolean }) => t.following)).toBe(true);

    const first = await carol.client.get('/api/v1/followed_tags?limit=2');
    expect(first.body.map((t: { name: string }) => t.name)).toEqual(['three', 'two']);
    const next = linkPath(first.headers.get('link'), 'next');
    expect(next).toBeTruthy();
    const second = await carol.client.get(next ?? '');
    expect(second.body.map((t: { name: string }) => t.name)).toEqual(['one']);
    const prev = linkPath(second.headers.get('link'), 'prev');
    expect((await carol.client.get(prev ?? '')).body.map((t: { name: string }) => t.name)).toEqual(['three', 'two']);
    expect((await (await inst.createUser('dave')).client.get('/api/v1/followed_tags')).body).toEqual([]);
  });

  it('followersOfTags: the local accounts following any of the tags, each once (the home fan-out reads it)', async () => {
    const [erin, frank] = [await inst.createUser('erin'), await inst.createUser('frank')];
    const a = (await erin.client.post('/api/v1/tags/alpha/follow')).body.id as string;
    const b = (await erin.client.post('/api/v1/tags/beta/follow')).body.id as string;
    await frank.client.post('/api/v1/tags/beta/follow');
    const c = (await frank.client.post('/api/v1/tags/gamma/follow')).body.id as string;
    expect(followersOfTags(inst.deps, [a, b]).sort()).toEqual([erin.accountId, frank.accountId].sort());
    expect(followersOfTags(inst.deps, [a])).toEqual([erin.accountId]);
    expect(followersOfTags(inst.deps, [c])).toEqual([frank.accountId]);
    expect(followersOfTags(inst.deps, [])).toEqual([]);
    await frank.client.post('/api/v1/tags/gamma/unfollow');
    expect(followersOfTags(inst.deps, [c])).toEqual([]);
  });

  it('scopes: write:follows to follow and unfollow, read:follows to list; no token is 401', async () => {
    expect((await inst.anon.post('/api/v1/tags/caturday/follow')).status).toBe(401);
    expect((await inst.anon.post('/api/v1/tags/caturday/unfollow')).status).toBe(401);
    expect((await inst.anon.get('/api/v1/followed_tags')).status).toBe(401);
    const readOnly = inst.tokenFor(alice, 'read:follows');
    const writeOnly = inst.tokenFor(alice, 'write:follows');
    const legacy = inst.tokenFor(alice, 'follow');
    const before = count(inst, 'tag_follows');
    expect((await alice.client.post('/api/v1/tags/caturday/follow', undefined, { token: readOnly })).status).toBe(403);
    expect(count(inst, 'tag_follows')).toBe(before);
    expect((await alice.client.get('/api/v1/followed_tags', { token: writeOnly })).status).toBe(403);
    expect((await alice.client.get('/api/v1/followed_tags', { token: readOnly })).status).toBe(200);
    expect((await alice.client.post('/api/v1/tags/caturday/follow', undefined, { token: writeOnly })).status).toBe(200);
    expect((await alice.client.post('/api/v1/tags/caturday/unfollow', undefined, { token: legacy })).status).toBe(200);
    // Reading a tag needs no scope at all.
    expect((await alice.client.get('/api/v1/tags/caturday', { token: writeOnly })).status).toBe(200);
  });
});
