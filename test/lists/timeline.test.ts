import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exclusiveListMembers, listTimelineStatusIds } from '../../api/core/lists/timeline.js';
import type { TestClient } from '../helpers/client.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { createList, follow } from './helpers.js';

async function post(client: TestClient, params: Record<string, unknown>): Promise<string> {
  const res = await client.post('/api/v1/statuses', params);
  expect(res.status, res.text).toBe(200);
  return res.body.id as string;
}

/**
 * The list timeline's statuses (core's `listTimelineStatusIds`, which the list timeline endpoint
 * serves): members' posts the owner may see, with the list's replies policy.
 */
describe('list timeline', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let frank: TestUser;
  let listId: string;
  const s: Record<string, string> = {};

  const page = { limit: 40 };
  const timeline = (id = listId, viewer = alice.accountId) => listTimelineStatusIds(inst.deps, viewer, id, page);
  const setPolicy = async (policy: string) => {
    expect((await alice.client.put(`/api/v1/lists/${listId}`, { replies_policy: policy })).status).toBe(200);
  };

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    dave = await inst.createUser('dave');
    frank = await inst.createUser('frank');
    // Alice follows bob, carol and frank (not dave); her list holds bob and frank.
    for (const u of [bob, carol, frank]) await follow(alice.client, u.accountId);
    listId = await createList(alice.client, 'Timeline');
    expect((await alice.client.post(`/api/v1/lists/${listId}/accounts`, { account_ids: [bob.accountId, frank.accountId] })).status).toBe(200);

    const byAlice = await post(alice.client, { status: 'alice speaks' });
    const byCarol = await post(carol.client, { status: 'carol speaks' });
    const byDave = await post(dave.client, { status: 'dave speaks' });
    const byFrank = await post(frank.client, { status: 'frank speaks' });
    s.frank = byFrank;
    s.plain = await post(bob.client, { status: 'bob speaks' });
    s.self = await post(bob.client, { status: 'bob again', in_reply_to_id: s.plain });
    s.toAlice = await post(bob.client, { status: '@alice hi', in_reply_to_id: byAlice });
    s.toCarol = await post(bob.client, { status: '@carol hi', in_reply_to_id: byCarol });
    s.toDave = await post(bob.client, { status: '@dave hi', in_reply_to_id: byDave });
    s.toFrank = await post(bob.client, { status: '@frank hi', in_reply_to_id: byFrank });
    s.private = await post(bob.client, { status: 'followers only', visibility: 'private' });
    s.direct = await post(bob.client, { status: '@alice secret', visibility: 'direct' });
    const boost = await bob.client.post(`/api/v1/statuses/${byDave}/reblog`);
    expect(boost.status).toBe(200);
    s.boost = boost.body.id as string;
    s.carolOwn = byCarol;
  });
  afterAll(async () => {
    await inst.close();
  });

  it('holds the members’ posts and boosts the owner may see, newest first, never direct messages or non-members', async () => {
    await setPolicy('list');
    const ids = await timeline();
    expect(ids).toEqual([...ids].sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1)));
    for (const key of ['plain', 'private', 'boost', 'frank']) expect(ids, key).toContain(s[key]);
    for (const key of ['direct', 'carolOwn']) expect(ids, key).not.toContain(s[key]);
  });

  it('replies_policy list shows replies to list members (and to oneself or the owner), not to others', async () => {
    await setPolicy('list');
    const ids = await timeline();
    for (const key of ['self', 'toAlice', 'toFrank']) expect(ids, key).toContain(s[key]);
    for (const key of ['toCarol', 'toDave']) expect(ids, key).not.toContain(s[key]);
  });

  it('replies_policy followed shows replies to any account the owner follows', async () => {
    await setPolicy('followed');
    const ids = await timeline();
    for (const key of ['self', 'toAlice', 'toFrank', 'toCarol']) expect(ids, key).toContain(s[key]);
    expect(ids).not.toContain(s.toDave);
  });

  it('replies_policy none shows no replies to others', async () => {
    await setPolicy('none');
    const ids = await timeline();
    for (const key of ['toFrank', 'toCarol', 'toDave']) expect(ids, key).not.toContain(s[key]);
    for (const key of ['plain', 'self']) expect(ids, key).toContain(s[key]);
  });

  it('pages with max_id and min_id', async () => {
    await setPolicy('list');
    const all = await timeline();
    const first = listTimelineStatusIds(inst.deps, alice.accountId, listId, { limit: 2 });
    expect(first).toEqual(all.slice(0, 2));
    const next = listTimelineStatusIds(inst.deps, alice.accountId, listId, { limit: 2, maxId: first[1] });
    expect(next).toEqual(all.slice(2, 4));
    expect(listTimelineStatusIds(inst.deps, alice.accountId, listId, { limit: 2, minId: next[1] })).toEqual(all.slice(1, 3));
  });

  it('another user’s list is not found', () => {
    expect(() => timeline(listId, bob.accountId)).toThrow(/Record not found/);
  });

  it('members of exclusive lists are reported for the home feed', async () => {
    expect(exclusiveListMembers(inst.deps, alice.accountId).size).toBe(0);
    expect((await alice.client.put(`/api/v1/lists/${listId}`, { exclusive: true })).status).toBe(200);
    expect([...exclusiveListMembers(inst.deps, alice.accountId)].sort()).toEqual([bob.accountId, frank.accountId].sort());
  });
});
