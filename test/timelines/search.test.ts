import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { follow, post, seedMedia, seedRemoteAccount } from './helpers.js';

describe('GET /api/v2/search', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let alina: TestUser;
  let bobPublic: any;
  let bobUnindexed: any;
  let alicePrivate: any;
  let carolPublic: any;
  let mentionsAlice: any;
  let withMedia: any;

  const statusIds = async (user: TestUser | null, q: string, extra = '') => {
    const client = user ? user.client : inst.anon;
    const res = await client.get(`/api/v2/search?type=statuses&q=${encodeURIComponent(q)}${extra}`);
    expect(res.status, res.text).toBe(200);
    return (res.body.statuses as { id: string }[]).map((s) => s.id);
  };

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    alina = await inst.createUser('alina');
    inst.deps.db.query("UPDATE accounts SET display_name = 'Alice Wonder', followers_count = 0 WHERE id = @id").run({ id: alice.accountId });
    inst.deps.db.query("UPDATE accounts SET display_name = 'Lina' WHERE id = @id").run({ id: alina.accountId });
    // Carol lets anyone search her public posts; Bob does not.
    inst.deps.db.query('UPDATE accounts SET indexable = 1 WHERE id = @id').run({ id: carol.accountId });
    seedRemoteAccount(inst, 'alibaba', 'remote.example');
    await follow(alice.client, carol.accountId);
    bobPublic = await post(bob.client, { status: 'Gardening tomatoes in the sun' });
    bobUnindexed = await post(bob.client, { status: 'tomatoes again, not indexable' });
    alicePrivate = await post(alice.client, { status: 'my private tomatoes', visibility: 'private' });
    carolPublic = await post(carol.client, { status: 'Carol grows tomatoes too #gardening' });
    mentionsAlice = await post(bob.client, { status: '@alice tomatoes for you', visibility: 'direct' });
    withMedia = await post(carol.client, { status: 'tomato picture', media_ids: [seedMedia(inst, carol.accountId, 'image', 'a red tomatoes photo')] });
    await post(carol.client, { status: 'ünïcödé wörds ' });
    await alice.client.post(`/api/v1/statuses/${bobPublic.id}/favourite`);
  });
  afterAll(async () => {
    await inst.close();
  });

  it('statuses: the viewer’s own, mentioning them, favourited by them, or public from indexable accounts', async () => {
    // Alice: her private one, the DM to her, the one she favourited, Carol's (indexable) public ones.
    expect(await statusIds(alice, 'tomatoes')).toEqual([withMedia.id, mentionsAlice.id, carolPublic.id, alicePrivate.id, bobPublic.id]);
    // Bob: his own three; not Alice's private one, only Carol's public ones.
    expect(await statusIds(bob, 'tomatoes')).toEqual([withMedia.id, mentionsAlice.id, carolPublic.id, bobUnindexed.id, bobPublic.id]);
    // Carol: her own; Bob's are not indexable and she has not interacted with them.
    expect(await statusIds(carol, 'tomatoes')).toEqual([withMedia.id, carolPublic.id]);
    // Bookmarking or boosting brings a status into one's library too.
    await carol.client.post(`/api/v1/statuses/${bobUnindexed.id}/bookmark`);
    await carol.client.post(`/api/v1/statuses/${bobPublic.id}/reblog`);
    expect(await statusIds(carol, 'tomatoes')).toEqual([withMedia.id, carolPublic.id, bobUnindexed.id, bobPublic.id]);
  });

  it('statuses: words must all match; phrases, exclusions, operators; diacritics folded', async () => {
    expect(await statusIds(alice, 'tomatoes sun')).toEqual([bobPublic.id]);
    expect(await statusIds(alice, '"grows tomatoes"')).toEqual([carolPublic.id]);
    expect(await statusIds(alice, 'tomatoes -private -carol')).toEqual([withMedia.id, mentionsAlice.id, bobPublic.id]);
    expect(await statusIds(alice, 'tomatoes from:carol')).toEqual([withMedia.id, carolPublic.id]);
    expect(await statusIds(alice, 'tomatoes from:me')).toEqual([alicePrivate.id]);
    expect(await statusIds(alice, 'from:nobody tomatoes')).toEqual([]);
    expect(await statusIds(alice, 'tomatoes has:media')).toEqual([withMedia.id]);
    expect(await statusIds(alice, 'tomatoes in:library')).toEqual([mentionsAlice.id, alicePrivate.id, bobPublic.id]);
    expect(await statusIds(alice, 'tomatoes in:public')).toEqual([withMedia.id, carolPublic.id]);
    expect(await statusIds(alice, 'unicode words')).toHaveLength(1);
    expect(await statusIds(alice, 'UNICODE')).toEqual(await statusIds(alice, 'ünïcödé'));
    // FTS syntax in the query is searched as text, never an error.
    expect(await statusIds(alice, 'tomatoes AND OR NOT ( * " ^')).toEqual([]);
    expect(await statusIds(alice, 'tomatoes', `&account_id=${carol.accountId}`)).toEqual([withMedia.id, carolPublic.id]);
    expect(await statusIds(alice, 'tomatoes', '&limit=2')).toEqual([withMedia.id, mentionsAlice.id]);
    expect(await statusIds(alice, 'tomatoes', '&limit=2&offset=2')).toEqual([carolPublic.id, alicePrivate.id]);
    expect(await statusIds(alice, 'tomatoes', `&max_id=${carolPublic.id}`)).toEqual([alicePrivate.id, bobPublic.id]);
  });

  it('statuses: follows edits and deletions', async () => {
    const s = await post(alice.client, { status: 'cucumbers everywhere' });
    expect(await statusIds(alice, 'cucumbers')).toEqual([s.id]);
    await alice.client.put(`/api/v1/statuses/${s.id}`, { status: 'zucchini everywhere' });
    expect(await statusIds(alice, 'cucumbers')).toEqual([]);
    expect(await statusIds(alice, 'zucchini')).toEqual([s.id]);
    await alice.client.delete(`/api/v1/statuses/${s.id}`);
    expect(await statusIds(alice, 'zucchini')).toEqual([]);
  });

  it('statuses: not for anonymous callers, nor for a lone #tag or @handle', async () => {
    expect(await statusIds(null, 'tomatoes')).toEqual([]);
    expect(await statusIds(alice, '#gardening')).toEqual([]);
    expect(await statusIds(alice, '@carol')).toEqual([]);
  });

  it('accounts: by username or display-name prefix, exact match first, following, offset', async () => {
    const res = await alice.client.get('/api/v2/search?q=ali&type=accounts');
    // Local accounts before remote ones, then by followers.
    expect(res.body.accounts.map((a: { acct: string }) => a.acct)).toEqual(['alice', 'alina', 'alibaba@remote.example']);
    const exact = await inst.anon.get('/api/v2/search?q=alina');
    expect(exact.body.accounts.map((a: { acct: string }) => a.acct)).toEqual(['alina']);
    expect((await inst.anon.get('/api/v2/search?q=wonder&type=accounts')).body.accounts.map((a: { acct: string }) => a.acct)).toEqual(['alice']);
    expect((await inst.anon.get('/api/v2/search?q=lin&type=accounts')).body.accounts.map((a: { acct: string }) => a.acct)).toEqual(['alina']);
    expect((await inst.anon.get('/api/v2/search?q=@alibaba@remote.example')).body.accounts.map((a: { acct: string }) => a.acct)).toEqual(['alibaba@remote.example']);
    const host = new URL(inst.url).host;
    expect((await inst.anon.get(`/api/v2/search?q=alice@${host}&type=accounts`)).body.accounts.map((a: { acct: string }) => a.acct)).toEqual(['alice']);
    const following = await alice.client.get('/api/v2/search?q=c&type=accounts&following=true');
    expect(following.body.accounts.map((a: { acct: string }) => a.acct)).toEqual(['carol']);
    const second = await alice.client.get('/api/v2/search?q=ali&type=accounts&limit=1&offset=2');
    expect(second.body.accounts.map((a: { acct: string }) => a.acct)).toEqual(['alibaba@remote.example']);
    // Offset applies only with a type.
    expect((await alice.client.get('/api/v2/search?q=ali&limit=1&offset=1')).body.accounts.map((a: { acct: string }) => a.acct)).toEqual(['alice']);
    expect((await inst.anon.get('/api/v2/search?q=%23gardening&type=accounts')).body.accounts).toEqual([]);
  });

  it('hashtags: by prefix, with a week of history, following/featuring for a user', async () => {
    const anon = await inst.anon.get('/api/v2/search?q=%23garden&type=hashtags');
    expect(anon.body.hashtags).toHaveLength(1);
    const tag = anon.body.hashtags[0];
    expect(tag.name).toBe('gardening');
    expect(tag.url).toBe(`${inst.url}/tags/gardening`);
    expect(tag.history).toHaveLength(7);
    expect(tag.history[0]).toEqual({ day: String(Math.floor(Date.now() / 86_400_000) * 86_400), uses: '1', accounts: '1' });
    expect(tag.history[6].uses).toBe('0');
    expect(tag.following).toBeUndefined();
    const signedIn = await alice.client.get('/api/v2/search?q=gard&type=hashtags');
    expect(signedIn.body.hashtags[0].following).toBe(false);
    expect((await alice.client.get('/api/v2/search?q=garden&type=hashtags&exclude_unreviewed=true')).body.hashtags).toEqual([]);
    expect((await alice.client.get('/api/v2/search?q=carol@example.com&type=hashtags')).body.hashtags).toEqual([]);
  });

  it('resolves an URL of this instance with resolve=true', async () => {
    const url = `${inst.url}/@carol/${carolPublic.id}`;
    const found = await alice.client.get(`/api/v2/search?q=${encodeURIComponent(url)}&resolve=true`);
    expect(found.body.statuses.map((s: { id: string }) => s.id)).toEqual([carolPublic.id]);
    const hidden = await carol.client.get(`/api/v2/search?q=${encodeURIComponent(`${inst.url}/@alice/${alicePrivate.id}`)}&resolve=true`);
    expect(hidden.body.statuses).toEqual([]);
    const account = await alice.client.get(`/api/v2/search?q=${encodeURIComponent(`${inst.url}/@bob`)}&resolve=true`);
    expect(account.body.accounts.map((a: { id: string }) => a.id)).toEqual([bob.accountId]);
  });

  it('is driven by masto', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    const results = await masto.v2.search.list({ q: 'tomatoes', type: 'statuses', limit: 2 });
    expect(results.statuses.map((s) => s.id)).toEqual([withMedia.id, mentionsAlice.id]);
    const all = await masto.v2.search.list({ q: 'carol' });
    expect(all.accounts.map((a) => a.acct)).toEqual(['carol']);
    expect(all.statuses.map((s) => s.id)).toEqual([carolPublic.id]);
  });

  it('bad input: q required (400), resolve/offset need a user (401), unknown type selects nothing', async () => {
    expect((await alice.client.get('/api/v2/search')).status).toBe(400);
    expect((await alice.client.get('/api/v2/search?q=')).status).toBe(400);
    // An unknown type selects no category, as Mastodon answers.
    const otherType = await alice.client.get('/api/v2/search?q=carol&type=people');
    expect(otherType.body).toEqual({ accounts: [], statuses: [], hashtags: [] });
    const offset = await inst.anon.get('/api/v2/search?q=x&type=accounts&offset=1');
    expect(offset.status).toBe(401);
    expect(offset.body.error).toBe('Search queries pagination is not supported without authentication');
    const resolve = await inst.anon.get('/api/v2/search?q=x&resolve=true');
    expect(resolve.status).toBe(401);
    expect(resolve.body.error).toBe('Search queries that resolve remote resources are not supported without authentication');
    expect((await inst.anon.get('/api/v2/search?q=x', { token: 'bad' })).status).toBe(401);
    expect((await inst.anon.get('/api/v2/search?q=x', { token: inst.tokenFor(alice, 'write') })).status).toBe(403);
    expect((await inst.anon.get('/api/v2/search?q=x', { token: inst.tokenFor(alice, 'read:search') })).status).toBe(200);
  });

  it('GET /api/v1/search is gone', async () => {
    const res = await alice.client.get('/api/v1/search?q=tomatoes');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Record not found' });
  });
});
