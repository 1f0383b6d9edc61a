import { describe, expect, it } from 'vitest';
import { seedRemoteAccount, useInstance } from '../helpers/fixtures.js';

describe('collections (Mastodon 4.6)', () => {
  const env = useInstance(['alice', 'bob', 'carol', 'dave', 'erin']);
  let id = '';

  async function optIn(names: ('alice' | 'bob' | 'carol' | 'dave' | 'erin')[]): Promise<void> {
    const { users } = env();
    for (const n of names) expect((await users[n].client.patch('/api/v1/accounts/update_credentials', { discoverable: true })).status).toBe(200);
  }

  it('creates a collection with its first accounts, accepted at once', async () => {
    const { inst, users } = env();
    await optIn(['bob', 'carol', 'erin']);
    const res = await users.alice.client.post('/api/v1/collections', {
      name: 'Nice accounts',
      description: 'These accounts are very nice',
      language: 'en',
      tag_name: '#Gardening',
      sensitive: false,
      discoverable: true,
      account_ids: [users.bob.accountId, users.carol.accountId],
    });
    expect(res.status, res.text).toBe(200);
    const c = res.body.collection;
    id = c.id;
    expect(c).toMatchObject({
      account_id: users.alice.accountId,
      uri: `${inst.url}/users/alice/collections/${c.id}`,
      url: null,
      name: 'Nice accounts',
      description: 'These accounts are very nice',
      language: 'en',
      local: true,
      sensitive: false,
      discoverable: true,
      tag: { name: 'Gardening', url: `${inst.url}/tags/Gardening` },
      item_count: 2,
    });
    expect(c.items.map((i: { account_id: string; state: string }) => [i.account_id, i.state])).toEqual([
      [users.bob.accountId, 'accepted'],
      [users.carol.accountId, 'accepted'],
    ]);
  });

  it('shows a collection with the accounts of its curator and items, to anyone', async () => {
    const { inst, users } = env();
    const res = await inst.anon.get(`/api/v1/collections/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.collection.id).toBe(id);
    expect(res.body.accounts.map((a: { id: string }) => a.id)).toEqual([users.alice.accountId, users.bob.accountId, users.carol.accountId]);
    expect((await inst.anon.get('/api/v1/collections/123456')).status).toBe(404);
    // A viewer the curator blocks may not see it.
    expect((await users.alice.client.post(`/api/v1/accounts/${users.dave.accountId}/block`)).status).toBe(200);
    expect((await users.dave.client.get(`/api/v1/collections/${id}`)).status).toBe(403);
    expect((await users.dave.client.get(`/api/v1/accounts/${users.alice.accountId}/collections`)).body).toEqual({ collections: [] });
    expect((await users.alice.client.post(`/api/v1/accounts/${users.dave.accountId}/unblock`)).status).toBe(200);
  });

  it("features only local accounts that opted into discovery and that neither side blocks", async () => {
    const { inst, users } = env();
    const shy = await users.alice.client.post('/api/v1/collections', { name: 'Shy', account_ids: [users.dave.accountId] });
    expect(shy.status).toBe(403);
    expect(shy.body.error).toBe('This action is not allowed');
    const remote = seedRemoteAccount(inst, 'faraway', 'remote.example');
    expect((await users.alice.client.post('/api/v1/collections', { name: 'Far', account_ids: [remote] })).status).toBe(403);
    expect((await users.alice.client.post('/api/v1/collections', { name: 'Nobody', account_ids: ['99999999'] })).status).toBe(404);
    expect((await users.erin.client.post(`/api/v1/accounts/${users.alice.accountId}/block`)).status).toBe(200);
    expect((await users.alice.client.post(`/api/v1/collections/${id}/items`, { account_id: users.erin.accountId })).status).toBe(403);
    expect((await users.erin.client.post(`/api/v1/accounts/${users.alice.accountId}/unblock`)).status).toBe(200);
  });

  it('refuses invalid attributes with per-attribute details, nested as Mastodon nests them', async () => {
    const { users } = env();
    const long = await users.alice.client.post('/api/v1/collections', { name: 'n'.repeat(41) });
    expect(long.status).toBe(422);
    expect(long.body.error).toEqual({
      error: 'Validation failed: Name is too long (maximum is 40 characters)',
      details: { name: [{ error: 'ERR_TOO_LONG', description: 'is too long (maximum is 40 characters)' }] },
    });
    const blank = await users.alice.client.post('/api/v1/collections', { description: 'no name' });
    expect(blank.status).toBe(422);
    expect(blank.body.error.details.name[0].error).toBe('ERR_BLANK');
    const many = await users.alice.client.post('/api/v1/collections', { name: 'Fine', description: 'd'.repeat(101), language: 'xx', tag_name: 'not a tag!' });
    expect(many.status).toBe(422);
    expect(Object.keys(many.body.error.details).sort()).toEqual(['description', 'language', 'tag_name']);
    // Nothing was made.
    expect((await users.alice.client.get(`/api/v1/accounts/${users.alice.accountId}/collections`)).body.collections).toHaveLength(1);
  });

  it("lists an account's collections: the curator sees all, others the discoverable ones", async () => {
    const { inst, users } = env();
    const hidden = await users.alice.client.post('/api/v1/collections', { name: 'Private picks', discoverable: false });
    expect(hidden.status).toBe(200);
    const own = await users.alice.client.get(`/api/v1/accounts/${users.alice.accountId}/collections`);
    expect(own.body.collections.map((c: { name: string }) => c.name)).toEqual(['Private picks', 'Nice accounts']);
    const others = await inst.anon.get(`/api/v1/accounts/${users.alice.accountId}/collections`);
    expect(others.body.collections.map((c: { name: string }) => c.name)).toEqual(['Nice accounts']);
    const page = await users.alice.client.get(`/api/v1/accounts/${users.alice.accountId}/collections?limit=1`);
    expect(page.body.collections.map((c: { name: string }) => c.name)).toEqual(['Private picks']);
    expect(page.headers.get('link')).toMatch(/offset=1.*rel="next"/);
    expect((await inst.anon.get('/api/v1/accounts/99999999/collections')).status).toBe(404);
  });

  it('updates and deletes only its curator\'s collections', async () => {
    const { users } = env();
    const patched = await users.alice.client.patch(`/api/v1/collections/${id}`, { description: 'Updated', tag_name: '' });
    expect(patched.status).toBe(200);
    expect(patched.body.collection).toMatchObject({ name: 'Nice accounts', description: 'Updated', tag: null, language: 'en' });
    const put = await users.alice.client.put(`/api/v1/collections/${id}`, { sensitive: true });
    expect(put.body.collection.sensitive).toBe(true);
    const theirs = await users.bob.client.patch(`/api/v1/collections/${id}`, { name: 'Mine now' });
    expect(theirs.status).toBe(403);
    expect(theirs.body.error).toBe('This action is not allowed');
    expect((await users.bob.client.delete(`/api/v1/collections/${id}`)).status).toBe(403);
    const doomed = (await users.alice.client.post('/api/v1/collections', { name: 'Doomed' })).body.collection.id;
    const del = await users.alice.client.delete(`/api/v1/collections/${doomed}`);
    expect(del.status).toBe(200);
    expect((await users.alice.client.get(`/api/v1/collections/${doomed}`)).status).toBe(404);
  });

  it('adds and removes items; the featured account can withdraw', async () => {
    const { inst, users } = env();
    const missing = await users.alice.client.post(`/api/v1/collections/${id}/items`, {});
    expect(missing.status).toBe(422);
    expect(missing.body.error).toBe('`account_id` parameter is missing');
    const added = await users.alice.client.post(`/api/v1/collections/${id}/items`, { account_id: users.erin.accountId });
    expect(added.status, added.text).toBe(200);
    expect(added.body.collection_item).toMatchObject({ account_id: users.erin.accountId, state: 'accepted' });
    expect((await users.alice.client.post(`/api/v1/collections/${id}/items`, { account_id: users.erin.accountId })).status).toBe(422);
    expect((await users.bob.client.post(`/api/v1/collections/${id}/items`, { account_id: users.erin.accountId })).status).toBe(403);

    // Erin is featured: in_collections lists it for her, and only for her.
    const featuring = await users.erin.client.get(`/api/v1/accounts/${users.erin.accountId}/in_collections`);
    expect(featuring.body.collections.map((c: { id: string }) => c.id)).toEqual([id]);
    expect((await users.bob.client.get(`/api/v1/accounts/${users.erin.accountId}/in_collections`)).status).toBe(403);

    const item = added.body.collection_item.id;
    expect((await users.carol.client.post(`/api/v1/collections/${id}/items/${item}/revoke`)).status).toBe(403);
    expect((await users.erin.client.post(`/api/v1/collections/${id}/items/${item}/revoke`)).status).toBe(200);
    const shown = await inst.anon.get(`/api/v1/collections/${id}`);
    expect(shown.body.collection.items.map((i: { account_id: string }) => i.account_id)).not.toContain(users.erin.accountId);
    expect((await users.erin.client.get(`/api/v1/accounts/${users.erin.accountId}/in_collections`)).body.collections).toEqual([]);

    const bobItem = shown.body.collection.items.find((i: { account_id: string }) => i.account_id === users.bob.accountId).id;
    expect((await users.bob.client.delete(`/api/v1/collections/${id}/items/${bobItem}`)).status).toBe(403);
    expect((await users.alice.client.delete(`/api/v1/collections/${id}/items/${bobItem}`)).status).toBe(200);
    expect((await users.alice.client.delete(`/api/v1/collections/${id}/items/${bobItem}`)).status).toBe(404);
    expect((await inst.anon.get(`/api/v1/collections/${id}`)).body.collection.item_count).toBe(1);
  });

  it('needs the collections scopes', async () => {
    const { inst, users } = env();
    expect((await inst.anon.post('/api/v1/collections', { name: 'x' })).status).toBe(401);
    expect((await inst.anon.post('/api/v1/collections', { name: 'x' }, { token: inst.tokenFor(users.bob, 'read write:statuses') })).status).toBe(403);
    expect((await inst.anon.post('/api/v1/collections', { name: 'Scoped' }, { token: inst.tokenFor(users.bob, 'write:collections') })).status).toBe(200);
    expect((await inst.anon.get(`/api/v1/collections/${id}`, { token: inst.tokenFor(users.bob, 'write') })).status).toBe(403);
    expect((await inst.anon.get(`/api/v1/collections/${id}`, { token: inst.tokenFor(users.bob, 'read:collections') })).status).toBe(200);
    // The first release's prefix answers the same.
    expect((await inst.anon.get(`/api/v1_alpha/collections/${id}`)).body.collection.id).toBe(id);
  });
});
