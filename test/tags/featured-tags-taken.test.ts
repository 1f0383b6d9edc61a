import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { count } from '../suggestions/helpers.js';

/**
 * Featuring a hashtag that is already featured, as Mastodon 4.5 answers it: POST
 * /api/v1/featured_tags finds a featured tag again only by the exact name it was featured under
 * (then it answers that one); the same tag under any other spelling, or one featured through
 * POST /api/v1/tags/:id/feature, fails FeaturedTag's uniqueness validation with a 422.
 */
describe('featuring a hashtag already featured', () => {
  let inst: TestInstance;
  let alice: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('under another spelling is 422 "Tag has already been taken" and writes nothing', async () => {
    const first = await alice.client.post('/api/v1/featured_tags', { name: 'Gardening' });
    expect(first.status).toBe(200);
    const before = count(inst, 'featured_tags');
    for (const name of ['gardening', '#GARDENING', 'GarDening']) {
      const res = await alice.client.post('/api/v1/featured_tags', { name });
      expect(res.status, name).toBe(422);
      expect(res.body.error, name).toBe('Validation failed: Tag has already been taken');
      expect(res.body.details.tag[0]).toEqual({ error: 'ERR_TAKEN', description: 'has already been taken' });
    }
    expect(count(inst, 'featured_tags')).toBe(before);
    // The very same name answers the featured tag it made.
    const same = await alice.client.post('/api/v1/featured_tags', { name: '#Gardening' });
    expect(same.status).toBe(200);
    expect(same.body.id).toBe(first.body.id);
  });

  it('featured through the tag (no name of its own) is 422 through featured_tags', async () => {
    expect((await alice.client.post('/api/v1/tags/birding/feature')).status).toBe(200);
    const res = await alice.client.post('/api/v1/featured_tags', { name: 'birding' });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Validation failed: Tag has already been taken');
    // Featuring it through the tag again is still fine (Mastodon finds it by the tag).
    expect((await alice.client.post('/api/v1/tags/birding/feature')).status).toBe(200);
  });

  it('at the limit, a taken tag names both problems in Rails order', async () => {
    const bob = await inst.createUser('bob');
    for (let i = 1; i <= 10; i++) expect((await bob.client.post('/api/v1/featured_tags', { name: `Topic${i}` })).status).toBe(200);
    const res = await bob.client.post('/api/v1/featured_tags', { name: 'topic1' });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Validation failed: Tag has already been taken, You have already featured the maximum number of hashtags');
  });
});
