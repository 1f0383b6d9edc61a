import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { act } from './helpers.js';

/** The `rel` URL of a Link header, parsed. */
function link(header: string | null, rel: 'next' | 'prev'): URL {
  const url = new RegExp(`<([^>]+)>; rel="${rel}"`).exec(header ?? '')?.[1];
  expect(url, `rel=${rel} in ${header}`).toBeTruthy();
  return new URL(url ?? '');
}

/**
 * Mastodon's blocks, mutes and followed tags controllers page back with `since_id` (not
 * `min_id`) in their `prev` link, and forward with `max_id`; both keep the other parameters.
 */
describe('prev links of blocks, mutes and followed tags', () => {
  let inst: TestInstance;
  let alice: TestUser;
  const others: TestUser[] = [];

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    for (const name of ['b1', 'b2', 'b3']) others.push(await inst.createUser(name));
    for (const u of others) {
      await act(alice, 'block', u.accountId);
      await act(alice, 'mute', u.accountId);
    }
    for (const tag of ['one', 'two', 'three']) expect((await alice.client.post(`/api/v1/tags/${tag}/follow`)).status).toBe(200);
  });
  afterAll(async () => {
    await inst.close();
  });

  for (const path of ['/api/v1/blocks', '/api/v1/mutes', '/api/v1/followed_tags']) {
    it(`${path}: prev uses since_id, next max_id`, async () => {
      const res = await alice.client.get(`${path}?limit=2`);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(2);
      const header = res.headers.get('link');
      const prev = link(header, 'prev');
      expect(prev.searchParams.get('since_id')).toBeTruthy();
      expect(prev.searchParams.has('min_id')).toBe(false);
      expect(prev.searchParams.get('limit')).toBe('2');
      const next = link(header, 'next');
      expect(next.searchParams.get('max_id')).toBeTruthy();
      // Following next and then prev comes back to (at least) the first page's newest entries.
      const older = await alice.client.get(next.pathname + next.search);
      expect(older.body).toHaveLength(1);
      const back = link(older.headers.get('link'), 'prev');
      expect(back.searchParams.get('since_id')).toBeTruthy();
      const newer = await alice.client.get(back.pathname + back.search);
      expect(newer.body).toHaveLength(2);
    });
  }
});
