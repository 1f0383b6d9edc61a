import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { post } from '../timelines/helpers.js';
import { count, createList, follow, memberIds } from './helpers.js';

/**
 * Who may be added to a list, as Mastodon's ListAccount decides it: an account the owner follows,
 * or has asked to follow (a pending request), or the owner themself. Anyone else is 404 and the
 * whole request adds nothing; a member on a pending request shows nothing in the list until the
 * request is accepted, and leaves the list if the request ends otherwise.
 */
describe('list members and follow requests', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let locked: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    locked = await inst.createUser('locked');
    stranger = await inst.createUser('stranger');
    expect((await locked.client.patch('/api/v1/accounts/update_credentials', { locked: true })).status).toBe(200);
    await follow(alice.client, bob.accountId);
  });
  afterAll(async () => {
    await inst.close();
  });

  const add = (listId: string, ids: string[]) => alice.client.post(`/api/v1/lists/${listId}/accounts`, { account_ids: ids });

  it('an account neither followed nor requested is 404, and none of the batch is added', async () => {
    const id = await createList(alice.client, 'Strangers');
    const before = count(inst, 'list_accounts');
    for (const ids of [[stranger.accountId], [bob.accountId, stranger.accountId], [stranger.accountId, bob.accountId]]) {
      const res = await add(id, ids);
      expect(res.status, ids.join()).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
    expect(count(inst, 'list_accounts')).toBe(before);
    expect(await memberIds(alice.client, id)).toEqual([]);
  });

  it('an account with a pending follow request can be added; it shows in the list once the request is accepted', async () => {
    const requested = await alice.client.post(`/api/v1/accounts/${locked.accountId}/follow`);
    expect(requested.body.requested).toBe(true);
    const id = await createList(alice.client, 'Requested');
    const res = await add(id, [bob.accountId, locked.accountId]);
    expect(res.status, res.text).toBe(200);
    expect((await memberIds(alice.client, id)).sort()).toEqual([bob.accountId, locked.accountId].sort());

    const early = await post(locked.client, { status: 'before acceptance' });
    const timeline = async () => ((await alice.client.get(`/api/v1/timelines/list/${id}`)).body as { id: string }[]).map((s) => s.id);
    // Mastodon distributes to a list only through a follow: nothing yet.
    expect(await timeline()).not.toContain(early.id);

    expect((await locked.client.post(`/api/v1/follow_requests/${alice.accountId}/authorize`)).status).toBe(200);
    const membership = inst.deps.db
      .query<{ follow_id: string | null }>('SELECT follow_id FROM list_accounts WHERE list_id = @list_id AND account_id = @account_id')
      .get({ list_id: id, account_id: locked.accountId });
    expect(membership?.follow_id).not.toBeNull();
    const later = await post(locked.client, { status: 'after acceptance' });
    expect(await timeline()).toEqual(expect.arrayContaining([later.id, early.id]));
    expect(await memberIds(alice.client, id)).toContain(locked.accountId);
  });

  it('a member whose pending request is rejected or withdrawn leaves the list', async () => {
    const carol = await inst.createUser('carol');
    expect((await carol.client.patch('/api/v1/accounts/update_credentials', { locked: true })).status).toBe(200);
    const dave = await inst.createUser('dave');
    expect((await dave.client.patch('/api/v1/accounts/update_credentials', { locked: true })).status).toBe(200);
    expect((await alice.client.post(`/api/v1/accounts/${carol.accountId}/follow`)).body.requested).toBe(true);
    expect((await alice.client.post(`/api/v1/accounts/${dave.accountId}/follow`)).body.requested).toBe(true);
    const id = await createList(alice.client, 'Pending');
    expect((await add(id, [carol.accountId, dave.accountId])).status).toBe(200);

    expect((await carol.client.post(`/api/v1/follow_requests/${alice.accountId}/reject`)).status).toBe(200);
    expect(await memberIds(alice.client, id)).toEqual([dave.accountId]);
    // Unfollowing withdraws the request.
    expect((await alice.client.post(`/api/v1/accounts/${dave.accountId}/unfollow`)).status).toBe(200);
    expect(await memberIds(alice.client, id)).toEqual([]);
  });

  it('limit=0 returns every member, whatever cursor comes with it, without a Link header', async () => {
    const id = await createList(alice.client, 'Everyone');
    expect((await add(id, [alice.accountId, bob.accountId])).status).toBe(200);
    const all = (await memberIds(alice.client, id)).sort();
    expect(all).toHaveLength(2);
    const newest = [...all].sort().at(-1) ?? '';
    const res = await alice.client.get(`/api/v1/lists/${id}/accounts?limit=0&max_id=${newest}`);
    expect(res.status).toBe(200);
    expect((res.body as { id: string }[]).map((a) => a.id).sort()).toEqual(all);
    expect(res.headers.get('link')).toBeNull();
    // A cursor without limit=0 still pages.
    expect((await memberIds(alice.client, id, `?max_id=${newest}`)).length).toBe(1);
  });

  it('an account already in the list is still 422', async () => {
    const id = await createList(alice.client, 'Twice');
    expect((await add(id, [bob.accountId])).status).toBe(200);
    const again = await add(id, [bob.accountId]);
    expect(again.status).toBe(422);
    expect(again.body.error).toBe('Validation failed: Account has already been taken');
  });
});
