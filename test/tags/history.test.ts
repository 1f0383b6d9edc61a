import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';

interface HistoryDay {
  day: string;
  uses: string;
  accounts: string;
}

/** Today's entry of a Tag's history. */
function today(tag: { history: HistoryDay[] }): { uses: string; accounts: string } {
  const day = tag.history[0] as HistoryDay;
  expect(day.day).toBe(String(Math.floor(Date.now() / 86_400_000) * 86_400));
  return { uses: day.uses, accounts: day.accounts };
}

// Mastodon records a tag's history only for public statuses (its Trends::Tags register): a
// private, direct or unlisted post must not show up in the counts anyone can read.
describe('tag history counts public statuses only', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    const post = async (user: TestUser, status: string, visibility: string): Promise<void> => {
      expect((await user.client.post('/api/v1/statuses', { status, visibility })).status).toBe(200);
    };
    await post(alice, 'out loud #Secretive', 'public');
    await post(bob, 'friends only #Secretive', 'private');
    await post(carol, 'just you @alice #Secretive', 'direct');
    await post(carol, 'quietly #Secretive', 'unlisted');
    await post(bob, 'only followers know #Hidden', 'private');
    await post(carol, 'a whisper @alice #Hidden', 'direct');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('GET /api/v1/tags/:name counts the public use and none of the others', async () => {
    const tag = await inst.anon.get('/api/v1/tags/secretive');
    expect(tag.status).toBe(200);
    expect(today(tag.body)).toEqual({ uses: '1', accounts: '1' });
    const hidden = await alice.client.get('/api/v1/tags/hidden');
    expect(hidden.status).toBe(200);
    expect(hidden.body.history).toHaveLength(7);
    expect(hidden.body.history.every((d: HistoryDay) => d.uses === '0' && d.accounts === '0')).toBe(true);
  });

  it('the author of the private posts sees no use either, nor do followed tags and search', async () => {
    // Even the author of a private use reads the same public history (it is one per tag).
    expect(today((await bob.client.get('/api/v1/tags/hidden')).body)).toEqual({ uses: '0', accounts: '0' });
    expect((await bob.client.post('/api/v1/tags/hidden/follow')).status).toBe(200);
    const followed = await bob.client.get('/api/v1/followed_tags');
    const entry = followed.body.find((t: { name: string }) => t.name === 'Hidden');
    expect(today(entry)).toEqual({ uses: '0', accounts: '0' });
    const search = await alice.client.get('/api/v2/search?q=%23secretive&type=hashtags');
    expect(search.status).toBe(200);
    const found = search.body.hashtags.find((t: { name: string }) => t.name === 'Secretive');
    expect(today(found)).toEqual({ uses: '1', accounts: '1' });
  });

  it('a boost does not count as a use', async () => {
    const own = await alice.client.post('/api/v1/statuses', { status: 'boost me #Boosted' });
    expect((await bob.client.post(`/api/v1/statuses/${own.body.id}/reblog`)).status).toBe(200);
    expect(today((await inst.anon.get('/api/v1/tags/boosted')).body)).toEqual({ uses: '1', accounts: '1' });
  });
});
