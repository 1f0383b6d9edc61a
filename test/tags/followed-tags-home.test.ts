import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { post } from '../suggestions/helpers.js';

/**
 * Statuses with a followed tag reach the home feed: the home fan-out (api/core/timelines/) calls
 * `followersOfTags` from api/core/tags/tags.ts.
 */
describe('followed tags in the home feed', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;

  async function homeIds(user: TestUser): Promise<string[]> {
    const res = await user.client.get('/api/v1/timelines/home');
    expect(res.status, res.text).toBe(200);
    return (res.body as { id: string }[]).map((s) => s.id);
  }

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    expect((await alice.client.post('/api/v1/tags/caturday/follow')).status).toBe(200);
  });
  afterAll(async () => {
    await inst.close();
  });

  it('a public status with a followed tag, by an account not followed, reaches the home feed', async () => {
    const tagged = await post(bob.client, 'look #Caturday');
    const untagged = await post(bob.client, 'no tag here');
    const home = await homeIds(alice);
    expect(home).toContain(tagged);
    expect(home).not.toContain(untagged);
  });

  it('only public statuses travel by tag (Mastodon fans out to tag followers only what is broadcast)', async () => {
    const unlisted = await post(bob.client, 'quiet #caturday', { visibility: 'unlisted' });
    const priv = await post(bob.client, 'private #caturday', { visibility: 'private' });
    const home = await homeIds(alice);
    expect(home).not.toContain(unlisted);
    expect(home).not.toContain(priv);
  });
});
