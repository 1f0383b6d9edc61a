import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';

describe('following between local accounts', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let locked: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    locked = await inst.createUser('lockedlarry');
    const res = await locked.client.patch('/api/v1/accounts/update_credentials', { locked: true });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await inst.close();
  });

  const account = async (user: TestUser) => (await inst.anon.get(`/api/v1/accounts/${user.accountId}`)).body;

  it('follows with masto, answers the relationship and keeps the counters right', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    const rel = await masto.v1.accounts.$select(bob.accountId).follow();
    expect(rel).toMatchObject({ id: bob.accountId, following: true, showingReblogs: true, notifying: false, requested: false, followedBy: false });
    expect(rel.languages).toBeNull();
    expect((await account(alice)).following_count).toBe(1);
    expect((await account(bob)).followers_count).toBe(1);

    // Following again changes nothing (and does not count twice).
    const again = await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`);
    expect(again.status).toBe(200);
    expect(again.body.following).toBe(true);
    expect((await account(bob)).followers_count).toBe(1);

    // Bob sees Alice as a follower.
    const fromBob = await bob.client.get(`/api/v1/accounts/relationships?id[]=${alice.accountId}`);
    expect(fromBob.status).toBe(200);
    expect(fromBob.body).toEqual([expect.objectContaining({ id: alice.accountId, following: false, followed_by: true })]);
  });

  it('updates an existing follow with the options given, keeping the others', async () => {
    const res = await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`, { reblogs: false, notify: true, languages: ['en', 'de'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ following: true, showing_reblogs: false, notifying: true, languages: ['en', 'de'] });
    // Form bodies with Mastodon's boolean strings; notify and languages stay as they were.
    const form = await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`, undefined, { form: { reblogs: 'true' } });
    expect(form.body).toMatchObject({ showing_reblogs: true, notifying: true, languages: ['en', 'de'] });
    // An empty language list means all languages again.
    const all = await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`, { languages: [] });
    expect(all.body.languages).toBeNull();
    expect((await account(bob)).followers_count).toBe(1);
  });

  it('refuses an invalid language and writes nothing', async () => {
    const res = await carol.client.post(`/api/v1/accounts/${bob.accountId}/follow`, { languages: ['not a language'] });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/Languages/);
    const rel = await carol.client.get(`/api/v1/accounts/relationships?id[]=${bob.accountId}`);
    expect(rel.body[0].following).toBe(false);
  });

  it('refuses to follow yourself with 403 and Mastodon\'s message', async () => {
    const res = await alice.client.post(`/api/v1/accounts/${alice.accountId}/follow`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'Following your own account is not allowed' });
    const masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    await expect(masto.v1.accounts.$select(alice.accountId).follow()).rejects.toThrow(/own account/);
    expect((await account(alice)).followers_count).toBe(0);
  });

  it('answers 404 for an account that does not exist', async () => {
    expect((await alice.client.post('/api/v1/accounts/123456789/follow')).status).toBe(404);
    expect((await alice.client.post('/api/v1/accounts/nonsense/follow')).status).toBe(404);
    expect((await alice.client.post('/api/v1/accounts/123456789/unfollow')).status).toBe(404);
  });

  it('makes a follow request to a locked account, kept with its options, and withdraws it on unfollow', async () => {
    const res = await carol.client.post(`/api/v1/accounts/${locked.accountId}/follow`, { notify: true, reblogs: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ following: false, requested: true, notifying: true, showing_reblogs: false });
    expect((await account(locked)).followers_count).toBe(0);
    // The locked account sees the request.
    const theirs = await locked.client.get(`/api/v1/accounts/relationships?id[]=${carol.accountId}`);
    expect(theirs.body[0]).toMatchObject({ requested_by: true, followed_by: false });
    // Asking again only changes the request's options.
    const again = await carol.client.post(`/api/v1/accounts/${locked.accountId}/follow`, { notify: false });
    expect(again.body).toMatchObject({ requested: true, notifying: false, showing_reblogs: false });

    const un = await carol.client.post(`/api/v1/accounts/${locked.accountId}/unfollow`);
    expect(un.status).toBe(200);
    expect(un.body).toMatchObject({ following: false, requested: false });
    const after = await locked.client.get(`/api/v1/accounts/relationships?id[]=${carol.accountId}`);
    expect(after.body[0].requested_by).toBe(false);
  });

  it('unfollows, also when not following, and the counters come back down', async () => {
    await carol.client.post(`/api/v1/accounts/${bob.accountId}/follow`);
    expect((await account(bob)).followers_count).toBe(2);
    const masto = createRestAPIClient({ url: inst.url, accessToken: carol.token });
    const rel = await masto.v1.accounts.$select(bob.accountId).unfollow();
    expect(rel).toMatchObject({ following: false, showingReblogs: false, notifying: false });
    expect((await account(bob)).followers_count).toBe(1);
    expect((await account(carol)).following_count).toBe(0);
    const twice = await carol.client.post(`/api/v1/accounts/${bob.accountId}/unfollow`);
    expect(twice.status).toBe(200);
    expect(twice.body.following).toBe(false);
    expect((await account(bob)).followers_count).toBe(1);
  });

  it('answers relationships in the order asked, skipping unknown ids, with every documented field', async () => {
    const res = await alice.client.get(
      `/api/v1/accounts/relationships?id[]=${carol.accountId}&id[]=999999&id[]=${bob.accountId}&id[]=${carol.accountId}&id[]=abc`,
    );
    expect(res.status).toBe(200);
    expect(res.body.map((r: { id: string }) => r.id)).toEqual([carol.accountId, bob.accountId]);
    expect(res.body[1]).toEqual({
      id: bob.accountId,
      following: true,
      showing_reblogs: true,
      notifying: true,
      languages: null,
      followed_by: false,
      blocking: false,
      blocked_by: false,
      muting: false,
      muting_notifications: false,
      muting_expires_at: null,
      requested: false,
      requested_by: false,
      domain_blocking: false,
      endorsed: false,
      note: '',
    });
    // A single `id` works too, and masto reads the array.
    const one = await alice.client.get(`/api/v1/accounts/relationships?id=${bob.accountId}`);
    expect(one.body).toHaveLength(1);
    const masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    const rels = await masto.v1.accounts.relationships.fetch({ id: [bob.accountId] });
    expect(rels[0]?.following).toBe(true);
    expect((await alice.client.get('/api/v1/accounts/relationships')).body).toEqual([]);
  });

  it('lists followers and following, newest follow first, paged with Link headers', async () => {
    const dave = await inst.createUser('dave');
    const erin = await inst.createUser('erin');
    for (const u of [bob, carol, dave, erin]) await u.client.post(`/api/v1/accounts/${alice.accountId}/follow`);

    const all = await inst.anon.get(`/api/v1/accounts/${alice.accountId}/followers`);
    expect(all.status).toBe(200);
    expect(all.body.map((a: { id: string }) => a.id)).toEqual([erin, dave, carol, bob].map((u) => u.accountId));

    const first = await inst.anon.get(`/api/v1/accounts/${alice.accountId}/followers?limit=2`);
    expect(first.body.map((a: { id: string }) => a.id)).toEqual([erin.accountId, dave.accountId]);
    const link = first.headers.get('link') ?? '';
    const next = /<([^>]+)>; rel="next"/.exec(link)?.[1] ?? '';
    expect(next).toContain('limit=2');
    const second = await inst.anon.get(next.replace(inst.url, ''));
    expect(second.body.map((a: { id: string }) => a.id)).toEqual([carol.accountId, bob.accountId]);
    const prev = /<([^>]+)>; rel="prev"/.exec(second.headers.get('link') ?? '')?.[1] ?? '';
    const back = await inst.anon.get(prev.replace(inst.url, ''));
    expect(back.body.map((a: { id: string }) => a.id)).toEqual([erin.accountId, dave.accountId]);

    const following = await bob.client.get(`/api/v1/accounts/${alice.accountId}/following`);
    expect(following.body.map((a: { id: string }) => a.id)).toEqual([bob.accountId]);

    const masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    const followers = await masto.v1.accounts.$select(alice.accountId).followers.list({ limit: 3 });
    expect(followers).toHaveLength(3);
    expect((await inst.anon.get('/api/v1/accounts/999999/followers')).status).toBe(404);
  });

  it('hides the lists of an account that hides its network, except from its owner', async () => {
    const res = await alice.client.patch('/api/v1/accounts/update_credentials', { hide_collections: true });
    expect(res.status).toBe(200);
    expect((await bob.client.get(`/api/v1/accounts/${alice.accountId}/followers`)).body).toEqual([]);
    expect((await inst.anon.get(`/api/v1/accounts/${alice.accountId}/following`)).body).toEqual([]);
    expect((await alice.client.get(`/api/v1/accounts/${alice.accountId}/followers`)).body.length).toBe(4);
    await alice.client.patch('/api/v1/accounts/update_credentials', { hide_collections: false });
  });

  it('checks tokens and scopes', async () => {
    const path = `/api/v1/accounts/${bob.accountId}/follow`;
    expect((await inst.anon.post(path)).status).toBe(401);
    expect((await alice.client.post(path, undefined, { token: 'bogus' })).status).toBe(401);
    const readOnly = inst.tokenFor(alice, 'read');
    const denied = await alice.client.post(path, undefined, { token: readOnly });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('This action is outside the authorized scopes');
    expect((await alice.client.post(`/api/v1/accounts/${bob.accountId}/unfollow`, undefined, { token: readOnly })).status).toBe(403);
    // write:follows, follow and write all allow following.
    for (const scopes of ['write:follows', 'follow', 'write']) {
      expect((await alice.client.post(path, undefined, { token: inst.tokenFor(alice, scopes) })).status).toBe(200);
    }
    const rels = `/api/v1/accounts/relationships?id[]=${bob.accountId}`;
    expect((await inst.anon.get(rels)).status).toBe(401);
    expect((await alice.client.get(rels, { token: inst.tokenFor(alice, 'write') })).status).toBe(403);
    expect((await alice.client.get(rels, { token: inst.tokenFor(alice, 'read:follows') })).status).toBe(200);
    expect((await alice.client.get(rels, { token: inst.tokenFor(alice, 'follow') })).status).toBe(200);
    // The lists are public, but a token given must carry read:accounts.
    const list = `/api/v1/accounts/${bob.accountId}/followers`;
    expect((await alice.client.get(list, { token: inst.tokenFor(alice, 'write') })).status).toBe(403);
    expect((await alice.client.get(list, { token: 'bogus' })).status).toBe(401);
  });
});
