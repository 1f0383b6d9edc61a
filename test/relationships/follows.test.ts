import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { act, count, ids, linkPath, relationship, silence } from './helpers.js';

describe('follows, follow requests and familiar followers', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;

  const lock = async (user: TestUser, locked: boolean) => {
    const res = await user.client.patch('/api/v1/accounts/update_credentials', { locked });
    expect(res.status, res.text).toBe(200);
  };
  const notificationTypes = async (user: TestUser) => (await user.client.get('/api/v1/notifications')).body.map((n: any) => `${n.type}:${n.account.id}`);

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('New follow requests from silenced accounts require approval', async () => {
    const open = await inst.createUser('openo');
    const quiet = await inst.createUser('quiet');
    silence(inst, quiet.accountId);
    const rel = await act(quiet, 'follow', open.accountId);
    expect(rel).toMatchObject({ following: false, requested: true });
    expect(await ids(open.client, '/api/v1/follow_requests')).toEqual([quiet.accountId]);
    // Its notification is held back by Mastodon's default policy (limited accounts are filtered).
    expect(await notificationTypes(open)).toEqual([]);
    const filtered = (await open.client.get('/api/v1/notifications?include_filtered=true')).body.map((n: any) => `${n.type}:${n.account.id}`);
    expect(filtered).toEqual([`follow_request:${quiet.accountId}`]);
    expect((await inst.anon.get(`/api/v1/accounts/${open.accountId}`)).body.followers_count).toBe(0);
  });

  it('Local follower with locked target: when the target unlocks, pending requests are accepted, except a silenced follower\'s, which stays pending', async () => {
    const locked = await inst.createUser('lockedlee');
    const plain = await inst.createUser('plainpat');
    const limited = await inst.createUser('limitedlin');
    await lock(locked, true);
    await act(plain, 'follow', locked.accountId, { notify: true, reblogs: false });
    await act(limited, 'follow', locked.accountId);
    silence(inst, limited.accountId);
    expect(await ids(locked.client, '/api/v1/follow_requests')).toEqual([limited.accountId, plain.accountId]);

    await lock(locked, false);
    // The unsilenced requester follows now, with the options its request carried.
    expect(await relationship(plain, locked.accountId)).toMatchObject({ following: true, requested: false, notifying: true, showing_reblogs: false });
    // The silenced one still waits for approval, and can be approved by hand.
    expect(await relationship(limited, locked.accountId)).toMatchObject({ following: false, requested: true });
    expect(await ids(locked.client, '/api/v1/follow_requests')).toEqual([limited.accountId]);
    expect((await inst.anon.get(`/api/v1/accounts/${locked.accountId}`)).body.followers_count).toBe(1);
    // Unlocking again (already unlocked) changes nothing.
    await lock(locked, false);
    expect((await relationship(limited, locked.accountId)).requested).toBe(true);
    const approved = await locked.client.post(`/api/v1/follow_requests/${limited.accountId}/authorize`);
    expect(approved.body).toMatchObject({ followed_by: true, requested_by: false });
  });

  it('POST follow: on an existing follow it updates it; with a new follow request the options are kept from the start and applied when accepted', async () => {
    const locked = await inst.createUser('lockedlou');
    const fan = await inst.createUser('fan');
    await lock(locked, true);
    const requested = await act(fan, 'follow', locked.accountId, { reblogs: false, notify: true, languages: ['de'] });
    expect(requested).toMatchObject({ following: false, requested: true, showing_reblogs: false, notifying: true, languages: ['de'] });
    const accepted = await locked.client.post(`/api/v1/follow_requests/${fan.accountId}/authorize`);
    expect(accepted.status).toBe(200);
    expect(await relationship(fan, locked.accountId)).toMatchObject({ following: true, requested: false, showing_reblogs: false, notifying: true, languages: ['de'] });
    // On the existing follow, only the options given change.
    const updated = await act(fan, 'follow', locked.accountId, { reblogs: true });
    expect(updated).toMatchObject({ following: true, showing_reblogs: true, notifying: true, languages: ['de'] });
    expect(count(inst, 'follows', 'account_id = @a AND target_account_id = @b', { a: fan.accountId, b: locked.accountId })).toBe(1);
  });

  it('following a group does not notify it', async () => {
    const group = await inst.createUser('clubhouse');
    inst.deps.db.query("UPDATE accounts SET actor_type = 'Group' WHERE id = @id").run({ id: group.accountId });
    const person = await inst.createUser('person');
    expect((await act(alice, 'follow', group.accountId)).following).toBe(true);
    expect(await notificationTypes(group)).toEqual([]);
    // A person is notified, as a control.
    await act(alice, 'follow', person.accountId);
    expect(await notificationTypes(person)).toEqual([`follow:${alice.accountId}`]);
  });

  it('lists follow requests paged, authorizes (the path names the requesting account) and rejects them', async () => {
    const locked = await inst.createUser('lockedlyn');
    await lock(locked, true);
    const requesters = [await inst.createUser('req1'), await inst.createUser('req2'), await inst.createUser('req3')];
    for (const r of requesters) await act(r, 'follow', locked.accountId);
    const [r1, r2, r3] = requesters.map((r) => r.accountId) as [string, string, string];
    const first = await locked.client.get('/api/v1/follow_requests?limit=2');
    expect(first.body.map((a: any) => a.id)).toEqual([r3, r2]);
    expect((await locked.client.get(linkPath(first.headers.get('link'), 'next'))).body.map((a: any) => a.id)).toEqual([r1]);
    expect((await locked.client.get('/api/v1/accounts/verify_credentials')).body.source.follow_requests_count).toBe(3);

    const masto = createRestAPIClient({ url: inst.url, accessToken: locked.token });
    const rel = await masto.v1.followRequests.$select(r1).authorize();
    expect(rel).toMatchObject({ id: r1, followedBy: true, requestedBy: false, following: false });
    expect(await relationship(requesters[0]!, locked.accountId)).toMatchObject({ following: true, requested: false });
    // Accepting adds no "follow" notification; the request's notification goes.
    expect(await notificationTypes(locked)).toEqual([`follow_request:${r3}`, `follow_request:${r2}`]);

    const rejected = await locked.client.post(`/api/v1/follow_requests/${r2}/reject`);
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ id: r2, followed_by: false, requested_by: false });
    expect(await relationship(requesters[1]!, locked.accountId)).toMatchObject({ following: false, requested: false });
    expect(await notificationTypes(locked)).toEqual([`follow_request:${r3}`]);
    expect((await masto.v1.followRequests.list()).map((a) => a.id)).toEqual([r3]);
    expect((await inst.anon.get(`/api/v1/accounts/${locked.accountId}`)).body.followers_count).toBe(1);
  });

  it('authorizing or rejecting a request that does not exist is 404 and writes nothing', async () => {
    const before = count(inst, 'follows');
    for (const action of ['authorize', 'reject']) {
      const none = await alice.client.post(`/api/v1/follow_requests/${bob.accountId}/${action}`);
      expect(none.status).toBe(404);
      expect(none.body).toEqual({ error: 'Record not found' });
      expect((await alice.client.post(`/api/v1/follow_requests/987654321/${action}`)).status).toBe(404);
      expect((await alice.client.post(`/api/v1/follow_requests/abc/${action}`)).status).toBe(404);
    }
    expect(count(inst, 'follows')).toBe(before);
  });

  it('removes an account from the followers', async () => {
    const fan = await inst.createUser('fanny');
    await act(fan, 'follow', bob.accountId);
    const rel = await act(bob, 'remove_from_followers', fan.accountId);
    expect(rel).toMatchObject({ id: fan.accountId, followed_by: false });
    expect((await relationship(fan, bob.accountId)).following).toBe(false);
    // Not a follower: fine, nothing changes.
    expect((await act(bob, 'remove_from_followers', fan.accountId)).followed_by).toBe(false);
    expect((await bob.client.post('/api/v1/accounts/987654321/remove_from_followers')).status).toBe(404);
  });

  it('familiar followers: followers of the given accounts that the current user also follows', async () => {
    const [viewer, target, other, friend, stranger, shy] = await Promise.all(['vic', 'tara', 'otto', 'fred', 'stan', 'shy'].map((n) => inst.createUser(n)));
    for (const u of [friend!, stranger!, shy!]) await act(u, 'follow', target!.accountId);
    await act(friend!, 'follow', other!.accountId);
    await act(viewer!, 'follow', friend!.accountId);
    await act(viewer!, 'follow', shy!.accountId);
    // A follower that hides its network is never shown as a familiar follower.
    await shy!.client.patch('/api/v1/accounts/update_credentials', { hide_collections: true });

    const res = await viewer!.client.get(`/api/v1/accounts/familiar_followers?id[]=${target!.accountId}&id[]=${other!.accountId}&id[]=987654321&id[]=${target!.accountId}`);
    expect(res.status).toBe(200);
    expect(res.body.map((f: any) => [f.id, f.accounts.map((a: any) => a.id)])).toEqual([
      [target!.accountId, [friend!.accountId]],
      [other!.accountId, [friend!.accountId]],
    ]);
    // An account that hides its network shows none.
    await target!.client.patch('/api/v1/accounts/update_credentials', { hide_collections: true });
    const hidden = await viewer!.client.get(`/api/v1/accounts/familiar_followers?id=${target!.accountId}`);
    expect(hidden.body).toEqual([{ id: target!.accountId, accounts: [] }]);
    expect((await viewer!.client.get('/api/v1/accounts/familiar_followers')).body).toEqual([]);
  });

  it('checks tokens and scopes of follow requests, remove_from_followers and familiar followers', async () => {
    const cases: [string, string, string, string][] = [
      ['GET', '/api/v1/follow_requests', 'read:follows', 'write:follows'],
      ['POST', `/api/v1/follow_requests/${bob.accountId}/authorize`, 'write:follows', 'read:follows'],
      ['POST', `/api/v1/follow_requests/${bob.accountId}/reject`, 'write:follows', 'read:follows'],
      ['POST', `/api/v1/accounts/${bob.accountId}/remove_from_followers`, 'write:follows', 'read:follows'],
      ['GET', `/api/v1/accounts/familiar_followers?id[]=${bob.accountId}`, 'read:follows', 'write:follows'],
    ];
    for (const [method, path, good, wrong] of cases) {
      expect((await alice.client.request(method, path, { token: null })).status).toBe(401);
      expect((await alice.client.request(method, path, { token: 'bogus' })).status).toBe(401);
      expect((await alice.client.request(method, path, { token: inst.tokenFor(alice, wrong) })).status, `${path} ${wrong}`).toBe(403);
      for (const scope of [good, 'follow']) {
        // No pending request here: the scope passes and the request is looked up (404).
        const status = (await alice.client.request(method, path, { token: inst.tokenFor(alice, scope) })).status;
        expect([200, 404], `${path} ${scope}`).toContain(status);
      }
    }
  });
});
