import { createRestAPIClient } from 'masto';
import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { act, count, ids, linkPath, post, relationship, seedRemoteAccount } from './helpers.js';

describe('relationships, notes and endorsements', () => {
  const env = useInstance(['alice', 'bob', 'carol']);

  it('Relationship following: when following, carries reblogs (following stays a JSON boolean; reblogs is showing_reblogs)', async () => {
    const { inst, users: { alice, bob, carol } } = env();
    // The spec's row describes `following` as "false, or an object carrying reblogs"; Mastodon's
    // docs, its OpenAPI description and typed clients decode a boolean, so the reblogs choice
    // travels as `showing_reblogs` while `following` stays true/false.
    const off = await act(alice, 'follow', bob.accountId, { reblogs: false });
    expect(off.following).toBe(true);
    expect(typeof off.following).toBe('boolean');
    expect(off.showing_reblogs).toBe(false);
    const on = await act(alice, 'follow', bob.accountId, { reblogs: true });
    expect(on.following).toBe(true);
    expect(on.showing_reblogs).toBe(true);
    const notFollowing = await relationship(carol, bob.accountId);
    expect(notFollowing.following).toBe(false);
    expect(notFollowing.showing_reblogs).toBe(false);
    // A typed client reads it as a boolean.
    const masto = createRestAPIClient({ url: inst.url, accessToken: alice.token });
    const [rel] = await masto.v1.accounts.relationships.fetch({ id: [bob.accountId] });
    expect(rel?.following).toBe(true);
    expect(rel?.showingReblogs).toBe(true);
  });

  it('A flag for being notified when a followed account posts exists in the relationship (notifying)', async () => {
    const { users: { alice, carol } } = env();
    expect((await act(carol, 'follow', alice.accountId, { notify: true })).notifying).toBe(true);
    await post(alice, 'ring the bell');
    const types = (await carol.client.get('/api/v1/notifications')).body.map((n: any) => n.type);
    expect(types).toContain('status');
    expect((await act(carol, 'follow', alice.accountId, { notify: false })).notifying).toBe(false);
  });

  it('Relationship requested_by: true when the other account has requested to follow', async () => {
    const { inst, users: { carol } } = env();
    const locked = await inst.createUser('lockedlo');
    await locked.client.patch('/api/v1/accounts/update_credentials', { locked: true });
    await act(carol, 'follow', locked.accountId);
    expect(await relationship(locked, carol.accountId)).toMatchObject({ requested_by: true, followed_by: false });
    expect(await relationship(carol, locked.accountId)).toMatchObject({ requested: true, requested_by: false });
  });

  it('Relationship muting_notifications: true when a mute also hides the muted account\'s notifications', async () => {
    const { users: { bob, carol } } = env();
    expect(await act(bob, 'mute', carol.accountId)).toMatchObject({ muting: true, muting_notifications: true });
    expect(await act(bob, 'mute', carol.accountId, { notifications: false })).toMatchObject({ muting: true, muting_notifications: false });
    expect(await act(bob, 'unmute', carol.accountId)).toMatchObject({ muting: false, muting_notifications: false });
  });

  it('Notifications from a muted account are omitted when the mute hides notifications', async () => {
    const { inst } = env();
    const dan = await inst.createUser('dan');
    const eve = await inst.createUser('eve');
    const status = await post(dan, 'favourite me');
    const fromEve = async () => (await dan.client.get('/api/v1/notifications')).body.filter((n: any) => n.account.id === eve.accountId).map((n: any) => n.type);

    // Muting statuses only: eve's notifications still come.
    await act(dan, 'mute', eve.accountId, { notifications: false });
    await eve.client.post(`/api/v1/statuses/${status.id}/favourite`);
    expect(await fromEve()).toEqual(['favourite']);

    // Muting notifications too: existing ones disappear and new ones are not made.
    await act(dan, 'mute', eve.accountId);
    expect(await fromEve()).toEqual([]);
    await post(eve, { status: `@dan hello`, visibility: 'public' });
    await act(eve, 'follow', dan.accountId);
    expect(await fromEve()).toEqual([]);
    expect((await dan.client.get('/api/v2/notifications')).body.notification_groups.map((g: any) => g.sample_account_ids).flat()).not.toContain(eve.accountId);
    expect(count(inst, 'notifications', 'account_id = @a AND from_account_id = @b', { a: dan.accountId, b: eve.accountId })).toBe(1);

    // Unmuted: what was made before the mute shows again.
    await act(dan, 'unmute', eve.accountId);
    expect(await fromEve()).toEqual(['favourite']);
  });

  it('Relationship note: the current user\'s private note on the account', async () => {
    const { inst, users: { alice, bob, carol } } = env();
    const rel = await act(alice, 'note', carol.accountId, { comment: 'met at the café' });
    expect(rel.note).toBe('met at the café');
    expect((await relationship(alice, carol.accountId)).note).toBe('met at the café');
    // Private: carol does not see alice's note, and bob has none.
    expect((await relationship(carol, alice.accountId)).note).toBe('');
    expect((await relationship(bob, carol.accountId)).note).toBe('');
    const form = await alice.client.post(`/api/v1/accounts/${carol.accountId}/note`, undefined, { form: { comment: 'second thoughts' } });
    expect(form.body.note).toBe('second thoughts');
    // An empty or absent comment clears it.
    expect((await act(alice, 'note', carol.accountId)).note).toBe('');
    expect(count(inst, 'account_notes', 'account_id = @a', { a: alice.accountId })).toBe(0);

    const tooLong = await alice.client.post(`/api/v1/accounts/${carol.accountId}/note`, { comment: 'x'.repeat(2001) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error).toBe('Validation failed: Comment is too long (maximum is 2000 characters)');
    expect((await alice.client.post('/api/v1/accounts/987654321/note', { comment: 'hi' })).status).toBe(404);
    expect(count(inst, 'account_notes', 'account_id = @a', { a: alice.accountId })).toBe(0);
  });

  it('answers every Relationship field, no null entries, duplicates merged, with_suspended', async () => {
    const { inst, users: { alice, bob, carol } } = env();
    const frank = await inst.createUser('frank');
    const gone = await inst.createUser('gone');
    const remote = seedRemoteAccount(inst, 'rem', 'remote.example');
    await act(frank, 'follow', alice.accountId, { notify: true, languages: ['en'] });
    await act(alice, 'follow', frank.accountId);
    await act(frank, 'block', bob.accountId);
    await act(carol, 'block', frank.accountId);
    await act(frank, 'mute', alice.accountId, { duration: 3600, notifications: false });
    await act(frank, 'pin', alice.accountId);
    await act(frank, 'note', alice.accountId, { comment: 'friend' });
    expect((await frank.client.post('/api/v1/domain_blocks', { domain: 'remote.example' })).status).toBe(200);
    inst.deps.db.query('UPDATE accounts SET suspended_at = 1 WHERE id = @id').run({ id: gone.accountId });

    const q = [alice, bob, carol, alice].map((u) => `id[]=${u.accountId}`).join('&');
    const res = await frank.client.get(`/api/v1/accounts/relationships?${q}&id[]=${remote}&id[]=${gone.accountId}&id[]=987654321`);
    expect(res.status).toBe(200);
    expect(res.body.map((r: any) => r.id)).toEqual([alice.accountId, bob.accountId, carol.accountId, remote]);
    expect(res.body).not.toContain(null);
    const [a, b, c, r] = res.body;
    expect(a).toEqual({
      id: alice.accountId,
      following: true,
      showing_reblogs: true,
      notifying: true,
      languages: ['en'],
      followed_by: true,
      blocking: false,
      blocked_by: false,
      muting: true,
      muting_notifications: false,
      muting_expires_at: expect.any(String),
      requested: false,
      requested_by: false,
      domain_blocking: false,
      endorsed: true,
      note: 'friend',
    });
    expect(b).toMatchObject({ blocking: true, blocked_by: false, muting: false });
    expect(c).toMatchObject({ blocking: false, blocked_by: true });
    expect(r).toMatchObject({ domain_blocking: true, following: false });

    const withSuspended = await frank.client.get(`/api/v1/accounts/relationships?id[]=${gone.accountId}&with_suspended=true`);
    expect(withSuspended.body.map((x: any) => x.id)).toEqual([gone.accountId]);
    const falsy = await frank.client.get(`/api/v1/accounts/relationships?id[]=${gone.accountId}&with_suspended=false`);
    expect(falsy.body).toEqual([]);
  });

  it('endorses only accounts you follow (pin/unpin and endorse/unendorse), listed on the profile and in /api/v1/endorsements', async () => {
    const { inst } = env();
    const gina = await inst.createUser('gina');
    const [p1, p2, p3] = [await inst.createUser('pal1'), await inst.createUser('pal2'), await inst.createUser('pal3')];
    const refused = await gina.client.post(`/api/v1/accounts/${p1!.accountId}/pin`);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('Validation failed: You must be already following the person you want to endorse');
    expect((await gina.client.post(`/api/v1/accounts/${gina.accountId}/endorse`)).status).toBe(422);
    expect(count(inst, 'account_pins', 'account_id = @a', { a: gina.accountId })).toBe(0);

    for (const p of [p1!, p2!, p3!]) await act(gina, 'follow', p.accountId);
    expect((await act(gina, 'pin', p1!.accountId)).endorsed).toBe(true);
    expect((await act(gina, 'endorse', p2!.accountId)).endorsed).toBe(true);
    expect((await act(gina, 'pin', p3!.accountId)).endorsed).toBe(true);
    expect((await act(gina, 'pin', p3!.accountId)).endorsed).toBe(true);

    expect(await ids(gina.client, '/api/v1/endorsements')).toEqual([p3!, p2!, p1!].map((u) => u.accountId));
    const page = await inst.anon.get(`/api/v1/accounts/${gina.accountId}/endorsements?limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.map((x: any) => x.id)).toEqual([p3!.accountId, p2!.accountId]);
    expect((await inst.anon.get(linkPath(page.headers.get('link'), 'next'))).body.map((x: any) => x.id)).toEqual([p1!.accountId]);
    expect((await inst.anon.get('/api/v1/accounts/987654321/endorsements')).status).toBe(404);

    expect((await act(gina, 'unpin', p1!.accountId)).endorsed).toBe(false);
    expect((await act(gina, 'unendorse', p1!.accountId)).endorsed).toBe(false);
    // Unfollowing ends the endorsement too.
    await act(gina, 'unfollow', p2!.accountId);
    expect((await relationship(gina, p2!.accountId)).endorsed).toBe(false);
    expect(await ids(gina.client, '/api/v1/endorsements')).toEqual([p3!.accountId]);

    const masto = createRestAPIClient({ url: inst.url, accessToken: gina.token });
    expect((await masto.v1.endorsements.list()).map((x) => x.id)).toEqual([p3!.accountId]);
  });

  it('checks tokens and scopes of notes and endorsements', async () => {
    const { inst, users: { alice, bob } } = env();
    const cases: [string, string, string, string][] = [
      ['POST', `/api/v1/accounts/${bob.accountId}/note`, 'write:accounts', 'read:accounts'],
      ['POST', `/api/v1/accounts/${bob.accountId}/unpin`, 'write:accounts', 'write:follows'],
      ['POST', `/api/v1/accounts/${bob.accountId}/unendorse`, 'write:accounts', 'write:follows'],
      ['GET', '/api/v1/endorsements', 'read:accounts', 'write:accounts'],
    ];
    for (const [method, path, good, wrong] of cases) {
      expect((await alice.client.request(method, path, { token: null })).status).toBe(401);
      expect((await alice.client.request(method, path, { token: inst.tokenFor(alice, wrong) })).status, `${path} ${wrong}`).toBe(403);
      expect((await alice.client.request(method, path, { token: inst.tokenFor(alice, good) })).status, `${path} ${good}`).toBe(200);
    }
    // The profile's list is public, but a token given must be valid and carry read:accounts.
    const profile = `/api/v1/accounts/${alice.accountId}/endorsements`;
    expect((await alice.client.get(profile, { token: 'bogus' })).status).toBe(401);
    expect((await alice.client.get(profile, { token: inst.tokenFor(alice, 'write') })).status).toBe(403);
  });
});
