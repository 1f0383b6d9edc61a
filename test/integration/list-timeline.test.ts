import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestClient } from '../helpers/client.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { newId } from '../../api/util/ids.js';

async function post(client: TestClient, status: string): Promise<string> {
  const res = await client.post('/api/v1/statuses', { status });
  expect(res.status, res.text).toBe(200);
  return res.body.id as string;
}

async function homeIds(client: TestClient): Promise<string[]> {
  const res = await client.get('/api/v1/timelines/home?limit=40');
  expect([200, 206]).toContain(res.status);
  return (res.body as { id: string }[]).map((s) => s.id);
}

/** GET /api/v1/timelines/list/:list_id, and exclusive lists keeping their members out of home. */
describe('list timeline endpoint and exclusive lists', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let listId: string;
  const bobIds: string[] = [];

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    for (const u of [bob, carol]) expect((await alice.client.post(`/api/v1/accounts/${u.accountId}/follow`)).status).toBe(200);
    listId = (await alice.client.post('/api/v1/lists', { title: 'Bob' })).body.id as string;
    expect((await alice.client.post(`/api/v1/lists/${listId}/accounts`, { account_ids: [bob.accountId] })).status).toBe(200);
    for (let i = 0; i < 5; i++) bobIds.unshift(await post(bob.client, `bob ${i}`));
    await post(carol.client, 'carol, not on the list');
  });
  afterAll(() => inst.close());

  it("answers the members' statuses newest first, paged with a Link header", async () => {
    const first = await alice.client.get(`/api/v1/timelines/list/${listId}?limit=2`);
    expect(first.status).toBe(200);
    expect((first.body as { id: string }[]).map((s) => s.id)).toEqual(bobIds.slice(0, 2));
    const link = first.headers.get('link') ?? '';
    expect(link).toContain(`/api/v1/timelines/list/${listId}?`);
    expect(link).toContain(`max_id=${bobIds[1]}`);
    expect(link).toContain(`min_id=${bobIds[0]}`);
    const next = await alice.client.get(`/api/v1/timelines/list/${listId}?limit=2&max_id=${bobIds[1]}`);
    expect((next.body as { id: string }[]).map((s) => s.id)).toEqual(bobIds.slice(2, 4));
    const all = await alice.client.get(`/api/v1/timelines/list/${listId}?limit=40`);
    expect((all.body as { id: string }[]).map((s) => s.id)).toEqual(bobIds);
  });

  it("is 404 for someone else's list, a missing list and a malformed id", async () => {
    for (const [client, id] of [
      [carol.client, listId],
      [alice.client, newId()],
      [alice.client, 'nope'],
    ] as const) {
      const res = await client.get(`/api/v1/timelines/list/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
  });

  it('needs a user token with read:lists', async () => {
    expect((await inst.anon.get(`/api/v1/timelines/list/${listId}`)).status).toBe(401);
    const token = inst.tokenFor(alice, 'read:statuses');
    expect((await alice.client.get(`/api/v1/timelines/list/${listId}`, { token })).status).toBe(403);
    const ok = inst.tokenFor(alice, 'read:lists');
    expect((await alice.client.get(`/api/v1/timelines/list/${listId}`, { token: ok })).status).toBe(200);
  });

  it("an exclusive list's members no longer enter the owner's home feed, by fan-out or rebuild", async () => {
    const before = await post(bob.client, 'before exclusive');
    expect(await homeIds(alice.client)).toContain(before);
    expect((await alice.client.put(`/api/v1/lists/${listId}`, { exclusive: true })).status).toBe(200);
    const after = await post(bob.client, 'after exclusive');
    const fromCarol = await post(carol.client, 'carol still at home');
    const home = await homeIds(alice.client);
    expect(home).not.toContain(after);
    expect(home).toContain(fromCarol);
    // The list itself still shows it; the author's own home too.
    const listed = await alice.client.get(`/api/v1/timelines/list/${listId}`);
    expect((listed.body as { id: string }[]).map((s) => s.id)).toContain(after);
    expect(await homeIds(bob.client)).toContain(after);

    // A rebuilt feed leaves the exclusive members out as well.
    inst.deps.db.query('DELETE FROM home_feed WHERE account_id = @account_id').run({ account_id: alice.accountId });
    inst.deps.db.query('DELETE FROM feed_state WHERE account_id = @account_id').run({ account_id: alice.accountId });
    let rebuilt: string[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await alice.client.get('/api/v1/timelines/home?limit=40');
      rebuilt = (res.body as { id: string }[]).map((s) => s.id);
      if (res.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(rebuilt).toContain(fromCarol);
    expect(rebuilt).not.toContain(after);
    expect(rebuilt.some((id) => bobIds.includes(id))).toBe(false);
  });
});
