import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { count, post, setAccount } from '../suggestions/helpers.js';

describe('featured tags', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  const today = () => new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('featured tags are hashtag names without the number sign', async () => {
    const res = await alice.client.post('/api/v1/featured_tags', { name: '#Caturday' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Caturday',
      url: `${inst.url}/@alice/tagged/Caturday`,
      statuses_count: '0',
      last_status_at: null,
    });
    // Featuring it again under the same name (with or without '#') answers the same featured tag.
    const again = await alice.client.post('/api/v1/featured_tags', undefined, { form: { name: 'Caturday' } });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(res.body.id);
    expect((await alice.client.get('/api/v1/featured_tags')).body).toEqual([res.body]);

    const deleted = await alice.client.delete(`/api/v1/featured_tags/${res.body.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await alice.client.get('/api/v1/featured_tags')).body).toEqual([]);
  });

  it('statuses_count and last_status_at count the account’s own public and unlisted statuses with the tag', async () => {
    await post(alice.client, 'one #Knitting');
    await post(alice.client, 'two #knitting', { visibility: 'unlisted' });
    await post(alice.client, 'secret #knitting', { visibility: 'private' });
    await post(bob.client, 'bob #knitting too');
    const mine = await alice.client.post('/api/v1/featured_tags', { name: 'knitting' });
    // The name is shown as it was featured; the link is the tag's.
    expect(mine.body).toMatchObject({ name: 'knitting', statuses_count: '2', last_status_at: today() });
    const his = await bob.client.post('/api/v1/featured_tags', { name: 'knitting' });
    expect(his.body).toMatchObject({ name: 'knitting', statuses_count: '1', url: `${inst.url}/@bob/tagged/Knitting` });

    // Anyone may read an account's featured tags.
    const pub = await inst.anon.get(`/api/v1/accounts/${alice.accountId}/featured_tags`);
    expect(pub.status).toBe(200);
    expect(pub.body).toEqual([mine.body]);
    expect((await bob.client.get(`/api/v1/accounts/${alice.accountId}/featured_tags`)).body).toEqual([mine.body]);
  });

  it('another account’s featured tags: 404 for an unknown account, nothing for a suspended one', async () => {
    expect((await inst.anon.get('/api/v1/accounts/123456789/featured_tags')).status).toBe(404);
    expect((await inst.anon.get('/api/v1/accounts/nope/featured_tags')).status).toBe(404);
    const carol = await inst.createUser('carol');
    await carol.client.post('/api/v1/featured_tags', { name: 'gardening' });
    expect((await inst.anon.get(`/api/v1/accounts/${carol.accountId}/featured_tags`)).body).toHaveLength(1);
    setAccount(inst, carol.accountId, { suspended_at: Date.now() });
    expect((await inst.anon.get(`/api/v1/accounts/${carol.accountId}/featured_tags`)).body).toEqual([]);
  });

  it('the limit on featured tags is the one the instance exposes: the 11th is 422 and writes nothing', async () => {
    const instance = await inst.anon.get('/api/v2/instance');
    const limit = instance.body.configuration.accounts.max_featured_tags as number;
    expect(limit).toBe(10);
    const dave = await inst.createUser('dave');
    for (let i = 1; i <= limit; i++) expect((await dave.client.post('/api/v1/featured_tags', { name: `topic${i}` })).status).toBe(200);
    const [tags, featured] = [count(inst, 'tags'), count(inst, 'featured_tags')];
    const res = await dave.client.post('/api/v1/featured_tags', { name: 'onetoomany' });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Validation failed: You have already featured the maximum number of hashtags');
    // Neither the featured tag nor the new tag it would have created was written.
    expect([count(inst, 'tags'), count(inst, 'featured_tags')]).toEqual([tags, featured]);
    // Featuring one already featured is still fine at the limit.
    expect((await dave.client.post('/api/v1/featured_tags', { name: 'topic3' })).status).toBe(200);
    expect((await dave.client.post('/api/v1/tags/onetoomany/feature')).status).toBe(422);
    expect(count(inst, 'featured_tags')).toBe(featured);
  });

  it('an invalid or missing name is refused and writes nothing', async () => {
    const before = [count(inst, 'tags'), count(inst, 'featured_tags')];
    for (const name of ['123', 'two words', '#', 'a-b', 'x'.repeat(300)]) {
      const res = await alice.client.post('/api/v1/featured_tags', { name });
      expect(res.status, name).toBe(422);
      expect(res.body.error).toBe('Validation failed: Tag is invalid');
    }
    const missing = await alice.client.post('/api/v1/featured_tags', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('param is missing or the value is empty or invalid: name');
    expect([count(inst, 'tags'), count(inst, 'featured_tags')]).toEqual(before);
  });

  it('unfeaturing someone else’s featured tag, or one that does not exist, is 404', async () => {
    const theirs = (await bob.client.get('/api/v1/featured_tags')).body[0];
    expect((await alice.client.delete(`/api/v1/featured_tags/${theirs.id}`)).status).toBe(404);
    expect((await alice.client.delete('/api/v1/featured_tags/99999')).status).toBe(404);
    expect((await bob.client.get('/api/v1/featured_tags')).body).toEqual([theirs]);
  });

  it('suggestions: up to ten tags the account used most lately and does not feature yet', async () => {
    const erin = await inst.createUser('erin');
    await post(erin.client, '#Birds #trees');
    await post(erin.client, '#birds');
    await post(erin.client, '#clouds');
    await erin.client.post('/api/v1/featured_tags', { name: 'clouds' });
    const res = await erin.client.get('/api/v1/featured_tags/suggestions');
    expect(res.status).toBe(200);
    expect(res.body.map((t: { name: string }) => t.name)).toEqual(['Birds', 'trees']);
    expect(res.body[0]).toMatchObject({ url: `${inst.url}/tags/Birds`, following: false, featuring: false });
    expect(res.body[0].history).toHaveLength(7);
    expect(res.body[0].history[0]).toMatchObject({ uses: '2', accounts: '1' });
  });

  it('POST /api/v1/tags/:name/feature and /unfeature feature a tag by name and answer the Tag', async () => {
    const featured = await alice.client.post('/api/v1/tags/Sunsets/feature');
    expect(featured.status).toBe(200);
    expect(featured.body).toMatchObject({ name: 'Sunsets', featuring: true, following: false });
    expect((await alice.client.get('/api/v1/featured_tags')).body.map((t: { name: string }) => t.name)).toContain('Sunsets');
    const unfeatured = await alice.client.post('/api/v1/tags/sunsets/unfeature');
    expect(unfeatured.body).toMatchObject({ name: 'Sunsets', featuring: false });
    expect((await alice.client.get('/api/v1/featured_tags')).body.map((t: { name: string }) => t.name)).not.toContain('Sunsets');
    expect((await alice.client.post('/api/v1/tags/not%20a%20tag/feature')).status).toBe(404);
  });

  it('scopes: read:accounts to read, write:accounts to change; no token is 401', async () => {
    expect((await inst.anon.get('/api/v1/featured_tags')).status).toBe(401);
    expect((await inst.anon.post('/api/v1/featured_tags', { name: 'x1' })).status).toBe(401);
    expect((await inst.anon.get('/api/v1/featured_tags/suggestions')).status).toBe(401);
    const readOnly = inst.tokenFor(alice, 'read:accounts');
    const writeOnly = inst.tokenFor(alice, 'write:accounts');
    expect((await alice.client.get('/api/v1/featured_tags', { token: readOnly })).status).toBe(200);
    expect((await alice.client.get('/api/v1/featured_tags/suggestions', { token: readOnly })).status).toBe(200);
    expect((await alice.client.get('/api/v1/featured_tags', { token: writeOnly })).status).toBe(403);
    const before = count(inst, 'featured_tags');
    expect((await alice.client.post('/api/v1/featured_tags', { name: 'scoped' }, { token: readOnly })).status).toBe(403);
    expect((await alice.client.post('/api/v1/tags/scoped/feature', undefined, { token: readOnly })).status).toBe(403);
    expect(count(inst, 'featured_tags')).toBe(before);
    const created = await alice.client.post('/api/v1/featured_tags', { name: 'scoped' }, { token: writeOnly });
    expect(created.status).toBe(200);
    expect((await alice.client.delete(`/api/v1/featured_tags/${created.body.id}`, { token: readOnly })).status).toBe(403);
    expect((await alice.client.delete(`/api/v1/featured_tags/${created.body.id}`, { token: writeOnly })).status).toBe(200);
  });
});
