import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { count, createList, follow, links, memberIds, seedFollowedRemote } from './helpers.js';

describe('lists', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    dave = await inst.createUser('dave');
    // Alice follows bob and carol, not dave.
    await follow(alice.client, bob.accountId);
    await follow(alice.client, carol.accountId);
  });
  afterAll(async () => {
    await inst.close();
  });

  it('creates, renames and deletes a list; replies_policy defaults to list and exclusive to false', async () => {
    const created = await alice.client.post('/api/v1/lists', { title: 'Friends' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.any(String), title: 'Friends', replies_policy: 'list', exclusive: false });
    const id = created.body.id as string;

    const updated = await alice.client.put(`/api/v1/lists/${id}`, { title: 'Close friends', replies_policy: 'followed', exclusive: true });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ id, title: 'Close friends', replies_policy: 'followed', exclusive: true });
    // Attributes left out keep their values.
    const renamed = await alice.client.put(`/api/v1/lists/${id}`, undefined, { form: { title: 'Pals' } });
    expect(renamed.body).toEqual({ id, title: 'Pals', replies_policy: 'followed', exclusive: true });
    expect((await alice.client.get(`/api/v1/lists/${id}`)).body).toEqual(renamed.body);

    const deleted = await alice.client.delete(`/api/v1/lists/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await alice.client.get(`/api/v1/lists/${id}`)).status).toBe(404);
  });

  it('a missing or blank title is 422 and writes nothing', async () => {
    const before = count(inst, 'lists');
    const missing = await alice.client.post('/api/v1/lists', {});
    expect(missing.status).toBe(422);
    expect(missing.body.error).toBe("Validation failed: Title can't be blank");
    const blank = await alice.client.post('/api/v1/lists', undefined, { form: { title: '  ' } });
    expect(blank.status).toBe(422);
    expect(count(inst, 'lists')).toBe(before);

    const id = await createList(alice.client, 'Keep');
    const cleared = await alice.client.put(`/api/v1/lists/${id}`, { title: '' });
    expect(cleared.status).toBe(422);
    expect((await alice.client.get(`/api/v1/lists/${id}`)).body.title).toBe('Keep');
  });

  it('an unknown replies_policy is 422 and writes nothing', async () => {
    const before = count(inst, 'lists');
    const res = await alice.client.post('/api/v1/lists', { title: 'X', replies_policy: 'some' });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("'some' is not a valid replies_policy");
    expect(count(inst, 'lists')).toBe(before);
    const id = await createList(alice.client, 'Policies', { replies_policy: 'none' });
    expect((await alice.client.put(`/api/v1/lists/${id}`, { replies_policy: 'everyone' })).status).toBe(422);
    expect((await alice.client.get(`/api/v1/lists/${id}`)).body.replies_policy).toBe('none');
  });

  it('a user may own at most 50 lists: the 51st is 422 and nothing is written; the listing is not paginated', async () => {
    const erin = await inst.createUser('erin');
    for (let i = 1; i <= 50; i++) await createList(erin.client, `list ${i}`);
    const before = count(inst, 'lists');
    const res = await erin.client.post('/api/v1/lists', { title: 'one too many' });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Validation failed: You have reached the maximum number of lists');
    expect(count(inst, 'lists')).toBe(before);

    const all = await erin.client.get('/api/v1/lists');
    expect(all.status).toBe(200);
    expect(all.body).toHaveLength(50);
    expect(all.body.map((l: { title: string }) => l.title)).toEqual(Array.from({ length: 50 }, (_, i) => `list ${i + 1}`));
    expect(all.headers.get('link')).toBeNull();
    // Another user's lists do not count toward erin's limit.
    expect((await bob.client.post('/api/v1/lists', { title: 'mine' })).status).toBe(200);
  });

  it('a list that does not exist or is not yours is 404', async () => {
    const id = await createList(alice.client, 'Private');
    const members = count(inst, 'list_accounts');
    for (const [client, path] of [
      [bob.client, `/api/v1/lists/${id}`],
      [alice.client, '/api/v1/lists/123456789'],
      [alice.client, '/api/v1/lists/not-an-id'],
    ] as const) {
      expect((await client.get(path)).status).toBe(404);
      expect((await client.put(path, { title: 'stolen' })).status).toBe(404);
      expect((await client.get(`${path}/accounts`)).status).toBe(404);
      expect((await client.post(`${path}/accounts`, { account_ids: [bob.accountId] })).status).toBe(404);
      expect((await client.delete(`${path}/accounts`, { json: { account_ids: [bob.accountId] } })).status).toBe(404);
      const del = await client.delete(path);
      expect(del.status).toBe(404);
      expect(del.body).toEqual({ error: 'Record not found' });
    }
    expect((await alice.client.get(`/api/v1/lists/${id}`)).body.title).toBe('Private');
    expect(count(inst, 'list_accounts')).toBe(members);
  });

  it('only accounts you follow can be added: another is 404 and nothing is written', async () => {
    const id = await createList(alice.client, 'Followed only');
    const res = await alice.client.post(`/api/v1/lists/${id}/accounts`, { account_ids: [bob.accountId, dave.accountId] });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Record not found');
    expect(await memberIds(alice.client, id)).toEqual([]);

    const ok = await alice.client.post(`/api/v1/lists/${id}/accounts`, undefined, { form: { 'account_ids[]': [bob.accountId, carol.accountId] } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({});
    expect((await memberIds(alice.client, id)).sort()).toEqual([bob.accountId, carol.accountId].sort());
    // Listing oneself needs no follow.
    expect((await alice.client.post(`/api/v1/lists/${id}/accounts`, { account_ids: [alice.accountId] })).status).toBe(200);
  });

  it('an account already in the list is 422, and the whole request writes nothing', async () => {
    const id = await createList(alice.client, 'Dupes');
    expect((await alice.client.post(`/api/v1/lists/${id}/accounts`, { account_ids: [bob.accountId] })).status).toBe(200);
    const again = await alice.client.post(`/api/v1/lists/${id}/accounts`, { account_ids: [carol.accountId, bob.accountId] });
    expect(again.status).toBe(422);
    expect(again.body.error).toBe('Validation failed: Account has already been taken');
    expect(await memberIds(alice.client, id)).toEqual([bob.accountId]);
    const twice = await alice.client.post(`/api/v1/lists/${id}/accounts`, { account_ids: [carol.accountId, carol.accountId] });
    expect(twice.status).toBe(422);
    expect(await memberIds(alice.client, id)).toEqual([bob.accountId]);
  });

  it('an unknown account is 404 and nothing is written', async () => {
    const id = await createList(alice.client, 'Unknowns');
    expect((await alice.client.post(`/api/v1/lists/${id}/accounts`, { account_ids: [bob.accountId, '999999999'] })).status).toBe(404);
    expect((await alice.client.post(`/api/v1/lists/${id}/accounts`, { account_ids: ['nope'] })).status).toBe(404);
    expect(await memberIds(alice.client, id)).toEqual([]);
  });

  it('removes accounts from a list; accounts that are not members are ignored', async () => {
    const id = await createList(alice.client, 'Removals');
    await alice.client.post(`/api/v1/lists/${id}/accounts`, { account_ids: [bob.accountId, carol.accountId] });
    const res = await alice.client.delete(`/api/v1/lists/${id}/accounts`, { form: { 'account_ids[]': [bob.accountId, dave.accountId] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await memberIds(alice.client, id)).toEqual([carol.accountId]);
  });

  it('GET /api/v1/lists/:id/accounts pages at 40 by default with Link headers, as Mastodon; limit=0 means all; a limit pages too', async () => {
    const owner = await inst.createUser('owner');
    const id = await createList(owner.client, 'Big');
    const remote = Array.from({ length: 45 }, (_, i) => seedFollowedRemote(inst, owner.accountId, `member${i}`));
    const add = await owner.client.post(`/api/v1/lists/${id}/accounts`, { account_ids: remote });
    expect(add.status, add.text).toBe(200);

    const all = await owner.client.get(`/api/v1/lists/${id}/accounts`);
    expect(all.body).toHaveLength(40);
    const rest = links(all.headers.get('link')).next;
    expect(rest).toBeDefined();
    const tail = await owner.client.get(new URL(rest ?? '').pathname + new URL(rest ?? '').search);
    expect(tail.body).toHaveLength(5);
    expect(new Set([...all.body, ...tail.body].map((a: { id: string }) => a.id)).size).toBe(45);
    expect(all.body[0]).toMatchObject({ acct: expect.stringMatching(/^member\d+@remote\.example$/), username: expect.any(String), url: expect.any(String) });
    const unlimited = await owner.client.get(`/api/v1/lists/${id}/accounts?limit=0`);
    expect(unlimited.body).toHaveLength(45);
    expect(unlimited.headers.get('link')).toBeNull();

    const first = await owner.client.get(`/api/v1/lists/${id}/accounts?limit=20`);
    expect(first.body).toHaveLength(20);
    const next = links(first.headers.get('link')).next;
    expect(next).toBeDefined();
    const second = await owner.client.get(new URL(next ?? '').pathname + new URL(next ?? '').search);
    expect(second.body).toHaveLength(20);
    const seen = new Set([...first.body, ...second.body].map((a: { id: string }) => a.id));
    expect(seen.size).toBe(40);
    // Above 80 the limit is capped as Mastodon caps it (45 members: all of them, on one page).
    expect((await owner.client.get(`/api/v1/lists/${id}/accounts?limit=500`)).body).toHaveLength(45);
  });

  it('GET /api/v1/accounts/:id/lists lists only your own lists that contain the account', async () => {
    const a = await createList(alice.client, 'Has bob');
    const b = await createList(alice.client, 'No bob');
    await alice.client.post(`/api/v1/lists/${a}/accounts`, { account_ids: [bob.accountId] });
    void b;
    await follow(carol.client, bob.accountId);
    const carols = await createList(carol.client, 'Carol has bob');
    await carol.client.post(`/api/v1/lists/${carols}/accounts`, { account_ids: [bob.accountId] });

    const res = await alice.client.get(`/api/v1/accounts/${bob.accountId}/lists`);
    expect(res.status).toBe(200);
    const ids = (res.body as { id: string }[]).map((l) => l.id);
    expect(ids).toContain(a);
    expect(ids).not.toContain(b);
    expect(ids).not.toContain(carols);
    expect((await alice.client.get('/api/v1/accounts/999999999/lists')).status).toBe(404);
  });

  it('unfollowing an account removes it from the follower’s lists', async () => {
    const frank = await inst.createUser('frank');
    await follow(alice.client, frank.accountId);
    const id = await createList(alice.client, 'Temporary');
    await alice.client.post(`/api/v1/lists/${id}/accounts`, { account_ids: [frank.accountId, bob.accountId] });
    expect((await alice.client.post(`/api/v1/accounts/${frank.accountId}/unfollow`)).status).toBe(200);
    expect(await memberIds(alice.client, id)).toEqual([bob.accountId]);
    expect((await alice.client.get(`/api/v1/accounts/${frank.accountId}/lists`)).body).toEqual([]);
  });

  it('reading needs read:lists (or read) and changing needs write:lists (or write)', async () => {
    const id = await createList(alice.client, 'Scopes');
    const readOnly = alice.client.withToken(inst.tokenFor(alice, 'read:lists'));
    const writeOnly = alice.client.withToken(inst.tokenFor(alice, 'write:lists'));
    const broadRead = alice.client.withToken(inst.tokenFor(alice, 'read'));
    const other = alice.client.withToken(inst.tokenFor(alice, 'read:statuses write:statuses'));

    const before = count(inst, 'lists');
    expect((await readOnly.get('/api/v1/lists')).status).toBe(200);
    expect((await readOnly.get(`/api/v1/lists/${id}/accounts`)).status).toBe(200);
    expect((await broadRead.get(`/api/v1/accounts/${bob.accountId}/lists`)).status).toBe(200);
    const denied = await readOnly.post('/api/v1/lists', { title: 'nope' });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('This action is outside the authorized scopes');
    expect((await readOnly.put(`/api/v1/lists/${id}`, { title: 'nope' })).status).toBe(403);
    expect((await readOnly.delete(`/api/v1/lists/${id}`)).status).toBe(403);
    expect((await readOnly.post(`/api/v1/lists/${id}/accounts`, { account_ids: [bob.accountId] })).status).toBe(403);
    expect(count(inst, 'lists')).toBe(before);

    expect((await writeOnly.get('/api/v1/lists')).status).toBe(403);
    expect((await writeOnly.put(`/api/v1/lists/${id}`, { title: 'renamed' })).status).toBe(200);
    expect((await other.get('/api/v1/lists')).status).toBe(403);
    expect((await inst.anon.get('/api/v1/lists')).status).toBe(401);
    expect((await inst.anon.post('/api/v1/lists', { title: 'x' })).status).toBe(401);
    expect((await alice.client.get('/api/v1/lists', { token: 'not-a-token' })).status).toBe(401);
  });

  it('works with the masto client (masto.v1.lists)', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    const list = await masto.v1.lists.create({ title: 'From masto', exclusive: true });
    expect(list).toMatchObject({ title: 'From masto', repliesPolicy: 'list', exclusive: true });
    await masto.v1.lists.$select(list.id).accounts.create({ accountIds: [bob.accountId] });
    const members = await masto.v1.lists.$select(list.id).accounts.list();
    expect(members.map((a) => a.id)).toEqual([bob.accountId]);
    const lists = await masto.v1.lists.list();
    expect(lists.map((l) => l.id)).toContain(list.id);
    const renamed = await masto.v1.lists.$select(list.id).update({ title: 'Renamed by masto' });
    expect(renamed.title).toBe('Renamed by masto');
    await masto.v1.lists.$select(list.id).accounts.remove({ accountIds: [bob.accountId] });
    expect(await masto.v1.lists.$select(list.id).accounts.list()).toEqual([]);
    await masto.v1.lists.$select(list.id).remove();
    await expect(masto.v1.lists.$select(list.id).fetch()).rejects.toThrow(/Record not found/);
  });
});
