import { createRestAPIClient } from 'masto';
import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { act, count, eventually, ids, linkPath, post, relationship, seedRemoteAccount } from './helpers.js';

describe('blocks, mutes and domain blocks', () => {
  const env = useInstance(['alice', 'bob', 'carol']);

  it('a block removes follows and follow requests both ways, and unblock lifts it', async () => {
    const { inst, users: { alice, bob, carol } } = env();
    await act(alice, 'follow', bob.accountId);
    await act(bob, 'follow', alice.accountId);
    const locked = await inst.createUser('lockedlou');
    expect((await locked.client.patch('/api/v1/accounts/update_credentials', { locked: true })).status).toBe(200);
    await act(carol, 'follow', locked.accountId);
    await act(locked, 'follow', carol.accountId);
    expect((await relationship(carol, locked.accountId)).requested).toBe(true);

    const rel = await act(alice, 'block', bob.accountId);
    expect(rel).toMatchObject({ id: bob.accountId, blocking: true, blocked_by: false, following: false, followed_by: false });
    expect(await relationship(bob, alice.accountId)).toMatchObject({ blocked_by: true, blocking: false, following: false, followed_by: false });
    expect(count(inst, 'follows', 'account_id IN (@a, @b) AND target_account_id IN (@a, @b)', { a: alice.accountId, b: bob.accountId })).toBe(0);
    const account = (await inst.anon.get(`/api/v1/accounts/${bob.accountId}`)).body;
    expect(account.followers_count).toBe(0);
    expect(account.following_count).toBe(0);

    // The locked account blocks its requester: the request and the follow the other way both go.
    const lockedRel = await act(locked, 'block', carol.accountId);
    expect(lockedRel).toMatchObject({ blocking: true, requested_by: false, following: false });
    expect((await relationship(carol, locked.accountId)).requested).toBe(false);
    expect((await locked.client.get('/api/v1/follow_requests')).body).toEqual([]);

    // Neither side can follow the other while the block stands (403, as Mastodon's FollowService).
    const again = await bob.client.post(`/api/v1/accounts/${alice.accountId}/follow`);
    expect(again.status).toBe(403);
    expect(again.body.error).toBe('This action is not allowed');
    expect((await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`)).status).toBe(403);

    // Blocking twice is fine; unblocking lifts it (and twice is fine too).
    expect((await act(alice, 'block', bob.accountId)).blocking).toBe(true);
    expect(count(inst, 'blocks', 'account_id = @a', { a: alice.accountId })).toBe(1);
    expect((await act(alice, 'unblock', bob.accountId)).blocking).toBe(false);
    expect((await act(alice, 'unblock', bob.accountId)).blocking).toBe(false);
    expect((await relationship(bob, alice.accountId)).blocked_by).toBe(false);
    expect((await act(bob, 'follow', alice.accountId)).following).toBe(true);
    await act(bob, 'unfollow', alice.accountId);
  });

  it('blocking clears the notifications the blocker got from the blocked account', async () => {
    const { users: { bob, carol } } = env();
    const status = await post(carol, 'notice me');
    expect((await bob.client.post(`/api/v1/statuses/${status.id}/favourite`)).status).toBe(200);
    expect((await carol.client.get('/api/v1/notifications')).body.map((n: any) => n.account.id)).toContain(bob.accountId);
    await act(carol, 'block', bob.accountId);
    await act(carol, 'unblock', bob.accountId);
    expect((await carol.client.get('/api/v1/notifications')).body.map((n: any) => n.account.id)).not.toContain(bob.accountId);
  });

  it('lists blocked accounts, newest first, paged with Link headers', async () => {
    const { inst } = env();
    const [d1, d2, d3] = [await inst.createUser('blk1'), await inst.createUser('blk2'), await inst.createUser('blk3')];
    const dana = await inst.createUser('dana');
    for (const u of [d1, d2, d3]) await act(dana, 'block', u!.accountId);
    expect(await ids(dana.client, '/api/v1/blocks')).toEqual([d3, d2, d1].map((u) => u!.accountId));
    const first = await dana.client.get('/api/v1/blocks?limit=2');
    expect(first.body.map((a: any) => a.id)).toEqual([d3!.accountId, d2!.accountId]);
    const next = await dana.client.get(linkPath(first.headers.get('link'), 'next'));
    expect(next.body.map((a: any) => a.id)).toEqual([d1!.accountId]);
    const prev = await dana.client.get(linkPath(next.headers.get('link'), 'prev'));
    expect(prev.body.map((a: any) => a.id)).toEqual([d3!.accountId, d2!.accountId]);
  });

  it('Mute: hide_notifications (notifications, default true) and duration on muting', async () => {
    const { inst, users: { alice } } = env();
    const erin = await inst.createUser('erin');
    const muted = await act(erin, 'mute', alice.accountId);
    expect(muted).toMatchObject({ muting: true, muting_notifications: true, muting_expires_at: null });
    // Muting again replaces the options: notifications=false mutes statuses only (form body, Mastodon booleans).
    const res = await erin.client.post(`/api/v1/accounts/${alice.accountId}/mute`, undefined, { form: { notifications: 'false', duration: '3600' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ muting: true, muting_notifications: false });
    const ends = Date.parse(res.body.muting_expires_at);
    expect(ends).toBeGreaterThan(Date.now() + 3500_000);
    expect(ends).toBeLessThan(Date.now() + 3700_000);
    expect(count(inst, 'mutes', 'account_id = @a', { a: erin.accountId })).toBe(1);

    const list = await erin.client.get('/api/v1/mutes');
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ id: alice.accountId, username: 'alice', mute_expires_at: res.body.muting_expires_at });

    const un = await act(erin, 'unmute', alice.accountId);
    expect(un).toMatchObject({ muting: false, muting_notifications: false, muting_expires_at: null });
    expect(await ids(erin.client, '/api/v1/mutes')).toEqual([]);
    expect((await act(erin, 'unmute', alice.accountId)).muting).toBe(false);
  });

  it('a timed mute expires on time: ignored once its end passes, then removed by the scheduled task', async () => {
    const { inst, users: { alice } } = env();
    const fay = await inst.createUser('fay');
    const status = await post(alice, 'still here');
    const mine = await post(fay, 'like this');
    expect((await alice.client.post(`/api/v1/statuses/${mine.id}/favourite`)).status).toBe(200);
    await act(fay, 'follow', alice.accountId);
    const rel = await act(fay, 'mute', alice.accountId, { duration: 2 });
    expect(rel.muting).toBe(true);
    // While the mute lasts: listed, and the muted account is hidden from home and favourited_by.
    expect(await ids(fay.client, '/api/v1/mutes')).toEqual([alice.accountId]);
    expect(await ids(fay.client, `/api/v1/statuses/${mine.id}/favourited_by`)).toEqual([]);
    expect(await ids(fay.client, '/api/v1/timelines/home')).not.toContain(status.id);

    // Once its end passes it no longer applies, even before the scheduled task removes it.
    await eventually(async () => (await relationship(fay, alice.accountId)).muting === false, 8000);
    expect(await ids(fay.client, '/api/v1/mutes')).toEqual([]);
    expect(await ids(fay.client, `/api/v1/statuses/${mine.id}/favourited_by`)).toEqual([alice.accountId]);
    // The scheduled task (every second) deletes the expired row; whole timeline pages cached
    // before are dropped with that write, and the home feed shows the account again.
    await eventually(() => count(inst, 'mutes', 'account_id = @a', { a: fay.accountId }) === 0);
    expect(await ids(fay.client, '/api/v1/timelines/home')).toContain(status.id);
  });

  it('the home feed also leaves out statuses that mention an account the viewer blocks or mutes (the public timeline does not)', async () => {
    const { inst } = env();
    const kim = await inst.createUser('kim');
    const lou = await inst.createUser('lou');
    const max = await inst.createUser('max');
    await act(kim, 'follow', lou.accountId);
    const aboutMax = await post(lou, '@max look at this');
    const plain = await post(lou, 'nothing to see');
    expect(await ids(kim.client, '/api/v1/timelines/home')).toEqual(expect.arrayContaining([aboutMax.id, plain.id]));
    await act(kim, 'mute', max.accountId);
    const home = await ids(kim.client, '/api/v1/timelines/home');
    expect(home).toContain(plain.id);
    expect(home).not.toContain(aboutMax.id);
    expect(await ids(kim.client, '/api/v1/timelines/public?limit=40')).toContain(aboutMax.id);
    await act(kim, 'unmute', max.accountId);
    await act(kim, 'block', max.accountId);
    expect(await ids(kim.client, '/api/v1/timelines/home')).not.toContain(aboutMax.id);
  });

  it('lists mutes paged with Link headers, leaving expired ones out', async () => {
    const { inst, users: { alice, bob, carol } } = env();
    const gus = await inst.createUser('gus');
    await act(gus, 'mute', alice.accountId);
    await act(gus, 'mute', bob.accountId);
    await act(gus, 'mute', carol.accountId, { duration: 86400 });
    const first = await gus.client.get('/api/v1/mutes?limit=2');
    expect(first.body.map((a: any) => a.id)).toEqual([carol.accountId, bob.accountId]);
    expect(first.body[0].mute_expires_at).not.toBeNull();
    expect(first.body[1].mute_expires_at).toBeNull();
    const next = await gus.client.get(linkPath(first.headers.get('link'), 'next'));
    expect(next.body.map((a: any) => a.id)).toEqual([alice.accountId]);
  });

  it('blocks and unblocks domains: strings, normalized, paged, and the domain\'s followers removed', async () => {
    const { inst } = env();
    const hana = await inst.createUser('hana');
    const remote = seedRemoteAccount(inst, 'far', 'faraway.example');
    inst.deps.db
      .query('INSERT INTO follows (id, account_id, target_account_id, created_at, updated_at) VALUES (@id, @account_id, @target_account_id, 1, 1)')
      .run({ id: '123456789', account_id: remote, target_account_id: hana.accountId });
    inst.deps.db.query('UPDATE accounts SET followers_count = 1 WHERE id = @id').run({ id: hana.accountId });

    const res = await hana.client.post('/api/v1/domain_blocks', { domain: ' FarAway.Example ' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await relationship(hana, remote)).domain_blocking).toBe(true);
    expect((await relationship(hana, remote)).followed_by).toBe(false);
    expect((await inst.anon.get(`/api/v1/accounts/${hana.accountId}`)).body.followers_count).toBe(0);
    // Its accounts can no longer be followed.
    expect((await hana.client.post(`/api/v1/accounts/${remote}/follow`)).status).toBe(403);

    // Unicode domains are kept in Unicode, whatever form they come in.
    expect((await hana.client.post('/api/v1/domain_blocks', undefined, { form: { domain: 'xn--bcher-kva.example' } })).status).toBe(200);
    expect((await hana.client.post('/api/v1/domain_blocks', { domain: 'faraway.example' })).status).toBe(200);
    for (const d of ['a.example', 'b.example']) await hana.client.post('/api/v1/domain_blocks', { domain: d });
    const all = await hana.client.get('/api/v1/domain_blocks');
    expect(all.body).toEqual(['b.example', 'a.example', 'bücher.example', 'faraway.example']);
    const page = await hana.client.get('/api/v1/domain_blocks?limit=3');
    expect(page.body).toEqual(['b.example', 'a.example', 'bücher.example']);
    expect((await hana.client.get(linkPath(page.headers.get('link'), 'next'))).body).toEqual(['faraway.example']);

    const del = await hana.client.delete('/api/v1/domain_blocks?domain=faraway.example');
    expect(del.status).toBe(200);
    expect(del.body).toEqual({});
    expect((await relationship(hana, remote)).domain_blocking).toBe(false);
    expect((await hana.client.delete('/api/v1/domain_blocks', { json: { domain: 'never-blocked.example' } })).status).toBe(200);

    const masto = createRestAPIClient({ url: inst.url, accessToken: hana.token });
    await masto.v1.domainBlocks.create({ domain: 'masto.example' });
    expect((await masto.v1.domainBlocks.list()).includes('masto.example')).toBe(true);
    await masto.v1.domainBlocks.remove({ domain: 'masto.example' });
    expect((await masto.v1.domainBlocks.list()).includes('masto.example')).toBe(false);
  });

  it('Following, muting or blocking removes a suggestion; blocking on both sides, muting not on the target\'s side', async () => {
    const { inst } = env();
    const [p, q, r] = [await inst.createUser('sugp'), await inst.createUser('sugq'), await inst.createUser('sugr')];
    const seed = (from: string, to: string) =>
      inst.deps.db
        .query('INSERT INTO suggestion_candidates (account_id, target_account_id, score, updated_at) VALUES (@a, @b, 10, @at)')
        .run({ a: from, b: to, at: Date.now() });
    const has = (from: string, to: string) => count(inst, 'suggestion_candidates', 'account_id = @a AND target_account_id = @b', { a: from, b: to }) === 1;
    seed(p!.accountId, q!.accountId);
    seed(q!.accountId, p!.accountId);
    seed(p!.accountId, r!.accountId);
    seed(r!.accountId, p!.accountId);
    await act(p!, 'block', q!.accountId);
    expect([has(p!.accountId, q!.accountId), has(q!.accountId, p!.accountId)]).toEqual([false, false]);
    await act(p!, 'mute', r!.accountId);
    expect([has(p!.accountId, r!.accountId), has(r!.accountId, p!.accountId)]).toEqual([false, true]);
  });

  it('refuses bad input and writes nothing', async () => {
    const { inst, users: { alice } } = env();
    const ivy = await inst.createUser('ivy');
    const writes = () =>
      count(inst, 'blocks', 'account_id = @a', { a: ivy.accountId }) +
      count(inst, 'mutes', 'account_id = @a', { a: ivy.accountId }) +
      count(inst, 'follows', 'account_id = @a', { a: ivy.accountId });

    const self = await ivy.client.post(`/api/v1/accounts/${ivy.accountId}/follow`);
    expect(self.status).toBe(403);
    expect(self.body).toEqual({ error: 'Following your own account is not allowed' });

    // Blocking or muting oneself answers the relationship unchanged, as Mastodon's services return early.
    expect(await act(ivy, 'block', ivy.accountId)).toMatchObject({ id: ivy.accountId, blocking: false });
    expect(await act(ivy, 'mute', ivy.accountId)).toMatchObject({ id: ivy.accountId, muting: false });
    for (const action of ['block', 'unblock', 'mute', 'unmute']) {
      const res = await ivy.client.post(`/api/v1/accounts/987654321/${action}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
      expect((await ivy.client.post(`/api/v1/accounts/not-an-id/${action}`)).status).toBe(404);
    }
    const badDuration = await ivy.client.post(`/api/v1/accounts/${alice.accountId}/mute`, { duration: -5 });
    expect(badDuration.status).toBe(422);
    expect((await ivy.client.post(`/api/v1/accounts/${alice.accountId}/mute`, { duration: 'soon' })).status).toBe(422);
    expect(writes()).toBe(0);

    const blank = await ivy.client.post('/api/v1/domain_blocks', {});
    expect(blank.status).toBe(422);
    expect(blank.body.error).toBe("Validation failed: Domain can't be blank");
    const spaced = await ivy.client.post('/api/v1/domain_blocks', { domain: 'bad domain.example' });
    expect(spaced.status).toBe(422);
    expect(spaced.body.error).toBe('Validation failed: Domain is not a valid domain name');
    expect((await ivy.client.delete('/api/v1/domain_blocks', { json: { domain: '' } })).status).toBe(422);
    expect(count(inst, 'account_domain_blocks', 'account_id = @a', { a: ivy.accountId })).toBe(0);
  });

  it('checks tokens and scopes (read:blocks/write:blocks, read:mutes/write:mutes, follow covers them)', async () => {
    const { inst, users: { alice } } = env();
    const jo = await inst.createUser('jo');
    const token = (scopes: string) => inst.tokenFor(jo, scopes);
    const cases: [string, 'get' | 'post' | 'delete', string, string, string][] = [
      // path, method, scope that works, a scope that does not, an unrelated scope
      [`/api/v1/accounts/${alice.accountId}/block`, 'post', 'write:blocks', 'read:blocks', 'write:mutes'],
      [`/api/v1/accounts/${alice.accountId}/unblock`, 'post', 'write:blocks', 'read:blocks', 'write:follows'],
      [`/api/v1/accounts/${alice.accountId}/mute`, 'post', 'write:mutes', 'read:mutes', 'write:blocks'],
      [`/api/v1/accounts/${alice.accountId}/unmute`, 'post', 'write:mutes', 'read:mutes', 'write:blocks'],
      ['/api/v1/blocks', 'get', 'read:blocks', 'write:blocks', 'read:mutes'],
      ['/api/v1/mutes', 'get', 'read:mutes', 'write:mutes', 'read:blocks'],
      ['/api/v1/domain_blocks', 'get', 'read:blocks', 'write:blocks', 'read:mutes'],
      ['/api/v1/domain_blocks?domain=scope.example', 'post', 'write:blocks', 'read:blocks', 'write:mutes'],
      ['/api/v1/domain_blocks?domain=scope.example', 'delete', 'write:blocks', 'read:blocks', 'write:mutes'],
    ];
    const call = (method: string, path: string, t: string | null) => jo.client.request(method.toUpperCase(), path, { token: t });
    for (const [path, method, good, wrong, unrelated] of cases) {
      expect((await call(method, path, null)).status, `${method} ${path} anonymous`).toBe(401);
      expect((await call(method, path, 'bogus')).status).toBe(401);
      for (const scopes of [wrong, unrelated]) {
        const denied = await call(method, path, token(scopes));
        expect(denied.status, `${method} ${path} with ${scopes}`).toBe(403);
        expect(denied.body.error).toBe('This action is outside the authorized scopes');
      }
      for (const scopes of [good, 'follow', good.startsWith('read') ? 'read' : 'write']) {
        expect((await call(method, path, token(scopes))).status, `${method} ${path} with ${scopes}`).toBe(200);
      }
    }
  });
});
