import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { ids, links, post } from './helpers.js';

describe('GET /api/v1/favourites and /api/v1/bookmarks', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  const made: string[] = [];

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    for (let i = 0; i < 5; i++) made.push((await post(bob.client, { status: `bob ${i}` })).id);
    // Favourited and bookmarked out of order: the lists follow the time of the action.
    for (const i of [3, 0, 4, 1]) {
      expect((await alice.client.post(`/api/v1/statuses/${made[i]}/favourite`)).status).toBe(200);
      expect((await alice.client.post(`/api/v1/statuses/${made[i]}/bookmark`)).status).toBe(200);
    }
  });
  afterAll(async () => {
    await inst.close();
  });

  for (const kind of ['favourites', 'bookmarks'] as const) {
    it(`${kind}: newest action first, paged by the ${kind.slice(0, -1)} id through the Link header`, async () => {
      const all = await alice.client.get(`/api/v1/${kind}`);
      expect(all.body.map((s: { id: string }) => s.id)).toEqual([made[1], made[4], made[0], made[3]]);
      expect(all.body.every((s: { favourited: boolean; bookmarked: boolean }) => (kind === 'favourites' ? s.favourited : s.bookmarked))).toBe(true);

      const first = await alice.client.get(`/api/v1/${kind}?limit=2`);
      expect(first.body.map((s: { id: string }) => s.id)).toEqual([made[1], made[4]]);
      const link = links(first.headers.get('link'));
      const cursorNext = link.next?.searchParams.get('max_id');
      const cursorPrev = link.prev?.searchParams.get('min_id');
      // The cursors are the favourite/bookmark rows, not the statuses.
      const table = kind;
      const rowOf = (statusId: string | undefined) =>
        inst.deps.db.query<{ id: string }>(`SELECT id FROM ${table} WHERE account_id = @account_id AND status_id = @status_id`).get({ account_id: alice.accountId, status_id: statusId })?.id;
      expect(cursorNext).toBe(rowOf(made[4]));
      expect(cursorPrev).toBe(rowOf(made[1]));
      expect(await ids(alice.client, `${link.next?.pathname}${link.next?.search}`)).toEqual([made[0], made[3]]);
      expect(await ids(alice.client, `/api/v1/${kind}?min_id=${rowOf(made[3])}&limit=2`)).toEqual([made[4], made[0]]);
      expect(await ids(alice.client, `/api/v1/${kind}?since_id=${rowOf(made[0])}`)).toEqual([made[1], made[4]]);
    });

    it(`${kind}: empty for someone who has none`, async () => {
      expect(await ids(bob.client, `/api/v1/${kind}`)).toEqual([]);
    });

    it(`${kind}: needs a user token with read:${kind}`, async () => {
      expect((await inst.anon.get(`/api/v1/${kind}`)).status).toBe(401);
      expect((await alice.client.get(`/api/v1/${kind}`, { token: inst.tokenFor(alice, 'write') })).status).toBe(403);
      expect((await alice.client.get(`/api/v1/${kind}`, { token: inst.tokenFor(alice, `read:${kind}`) })).status).toBe(200);
      const other = kind === 'favourites' ? 'read:bookmarks' : 'read:favourites';
      expect((await alice.client.get(`/api/v1/${kind}`, { token: inst.tokenFor(alice, other) })).status).toBe(403);
    });
  }

  it('is driven by masto, and a deleted status leaves both lists', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    expect((await masto.v1.favourites.list({ limit: 2 })).map((s) => s.id)).toEqual([made[1], made[4]]);
    expect((await masto.v1.bookmarks.list()).map((s) => s.id)).toEqual([made[1], made[4], made[0], made[3]]);
    await bob.client.delete(`/api/v1/statuses/${made[4]}`);
    expect(await ids(alice.client, '/api/v1/favourites')).toEqual([made[1], made[0], made[3]]);
    expect(await ids(alice.client, '/api/v1/bookmarks')).toEqual([made[1], made[0], made[3]]);
  });
});
