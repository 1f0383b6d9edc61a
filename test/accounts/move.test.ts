import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../api/cli.js';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { insertRemoteAccount } from './helpers.js';

interface Account { id: string; acct: string; moved?: Account | null }
interface Relationship { id: string; following: boolean; requested: boolean }

const DAY = 24 * 60 * 60 * 1000;

describe('aliases and moves of local accounts (Pleroma API)', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let erin: TestUser;
  let domain: string;
  const actor = (username: string) => inst.deps.uris.accountUri(username);

  beforeAll(async () => {
    inst = await startInstance();
    domain = inst.deps.uris.domain;
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    dave = await inst.createUser('dave');
    erin = await inst.createUser('erin');
  });
  afterAll(async () => {
    resetClock();
    await inst.close();
  });

  it('GET /api/pleroma/aliases lists none at first; needs a token and read:accounts', async () => {
    const res = await alice.client.get('/api/pleroma/aliases');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ aliases: [] });
    expect((await inst.anon.get('/api/pleroma/aliases')).status).toBe(401);
    expect((await alice.client.get('/api/pleroma/aliases', { token: 'nonsense' })).status).toBe(401);
    const wrong = await alice.client.get('/api/pleroma/aliases', { token: inst.tokenFor(alice, 'read:statuses') });
    expect(wrong.status).toBe(403);
    expect((await alice.client.get('/api/pleroma/aliases', { token: inst.tokenFor(alice, 'read:accounts') })).status).toBe(200);
  });

  it('PUT /api/pleroma/aliases adds a local or known remote account by handle, once', async () => {
    const res = await bob.client.put('/api/pleroma/aliases', { alias: `alice@${domain}` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success' });
    // Again, with a leading @ and as a form: nothing changes.
    expect((await bob.client.put('/api/pleroma/aliases', undefined, { form: { alias: `@alice@${domain}` } })).status).toBe(200);
    const remoteId = insertRemoteAccount(inst, 'zed', 'remote.example');
    expect(remoteId).toBeTruthy();
    expect((await bob.client.put('/api/pleroma/aliases', { alias: 'zed@remote.example' })).status).toBe(200);
    const list = await bob.client.get('/api/pleroma/aliases');
    expect(list.body).toEqual({ aliases: [actor('alice'), 'https://remote.example/users/zed'] });
  });

  it('PUT /api/pleroma/aliases refuses bad input, writing nothing', async () => {
    const unknown = await bob.client.put('/api/pleroma/aliases', { alias: 'nobody@nowhere.example' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Target account not found.' });
    expect((await bob.client.put('/api/pleroma/aliases', { alias: `nobody@${domain}` })).status).toBe(404);
    const missing = await bob.client.put('/api/pleroma/aliases', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/alias/);
    const self = await bob.client.put('/api/pleroma/aliases', { alias: `bob@${domain}` });
    expect(self.status).toBe(422);
    expect(self.body.error).toMatch(/your own account/);
    expect((await bob.client.put('/api/pleroma/aliases', { alias: 'x'.repeat(3000) })).status).toBe(422);
    expect((await inst.anon.put('/api/pleroma/aliases', { alias: `alice@${domain}` })).status).toBe(401);
    expect((await bob.client.put('/api/pleroma/aliases', { alias: `carol@${domain}` }, { token: inst.tokenFor(bob, 'read') })).status).toBe(403);
    expect((await bob.client.get('/api/pleroma/aliases')).body.aliases).toHaveLength(2);
  });

  it('DELETE /api/pleroma/aliases removes by handle or by URI; 404 for a non-alias', async () => {
    const res = await bob.client.delete('/api/pleroma/aliases', { json: { alias: 'https://remote.example/users/zed' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success' });
    const again = await bob.client.delete('/api/pleroma/aliases', { json: { alias: 'zed@remote.example' } });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'Account has no such alias.' });
    expect((await bob.client.delete('/api/pleroma/aliases', { json: {} })).status).toBe(400);
    expect((await inst.anon.delete('/api/pleroma/aliases', { json: { alias: `alice@${domain}` } })).status).toBe(401);
    expect((await bob.client.delete('/api/pleroma/aliases', { json: { alias: `alice@${domain}` }, token: inst.tokenFor(bob, 'read:accounts') })).status).toBe(403);
    expect((await bob.client.get('/api/pleroma/aliases')).body).toEqual({ aliases: [actor('alice')] });
  });

  it('POST /api/pleroma/move_account refuses a wrong password, unknown or non-aliasing targets, and bad tokens', async () => {
    const wrong = await alice.client.post('/api/pleroma/move_account', { password: 'not-it', target_account: `bob@${domain}` });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({ error: 'Invalid password.' });
    const unknown = await alice.client.post('/api/pleroma/move_account', { password: alice.password, target_account: `nobody@${domain}` });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Target account not found.' });
    const notAliased = await alice.client.post('/api/pleroma/move_account', { password: alice.password, target_account: `carol@${domain}` });
    expect(notAliased.status).toBe(422);
    expect(notAliased.body.error).toContain('does not list this account as an alias');
    const self = await alice.client.post('/api/pleroma/move_account', { password: alice.password, target_account: `alice@${domain}` });
    expect(self.status).toBe(422);
    expect((await alice.client.post('/api/pleroma/move_account', { target_account: `bob@${domain}` })).status).toBe(400);
    expect((await alice.client.post('/api/pleroma/move_account', { password: alice.password })).status).toBe(400);
    expect((await inst.anon.post('/api/pleroma/move_account', { password: alice.password, target_account: `bob@${domain}` })).status).toBe(401);
    const scope = await alice.client.post('/api/pleroma/move_account', { password: alice.password, target_account: `bob@${domain}` }, { token: inst.tokenFor(alice, 'read write:statuses') });
    expect(scope.status).toBe(403);
    // Nothing moved.
    expect((await carol.client.get<Account>(`/api/v1/accounts/${alice.accountId}`)).body.moved).toBeUndefined();
  });

  it('moves alice to bob: her local followers follow bob instead, and alice shows `moved`', async () => {
    expect((await carol.client.post(`/api/v1/accounts/${alice.accountId}/follow`, { reblogs: false })).status).toBe(200);
    expect((await dave.client.post(`/api/v1/accounts/${alice.accountId}/follow`)).status).toBe(200);
    // erin blocks bob: her follow of alice ends without a follow of bob.
    expect((await erin.client.post(`/api/v1/accounts/${alice.accountId}/follow`)).status).toBe(200);
    expect((await erin.client.post(`/api/v1/accounts/${bob.accountId}/block`)).status).toBe(200);
    // fay blocks alice and gus mutes her (for an hour, notifications shown): both carry over to bob.
    const fay = await inst.createUser('fay');
    const gus = await inst.createUser('gus');
    expect((await fay.client.post(`/api/v1/accounts/${alice.accountId}/block`)).status).toBe(200);
    expect((await gus.client.post(`/api/v1/accounts/${alice.accountId}/mute`, { notifications: false, duration: 3600 })).status).toBe(200);

    const res = await alice.client.post('/api/pleroma/move_account', { password: alice.password, target_account: `bob@${domain}` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success' });

    const shown = await carol.client.get<Account>(`/api/v1/accounts/${alice.accountId}`);
    expect(shown.body.moved?.id).toBe(bob.accountId);
    expect(shown.body.moved?.acct).toBe('bob');
    for (const follower of [carol, dave]) {
      const rel = await follower.client.get<Relationship[]>(`/api/v1/accounts/relationships?id[]=${alice.accountId}&id[]=${bob.accountId}`);
      expect(rel.body.map((r) => r.following)).toEqual([false, true]);
    }
    // The follow's options came along.
    const carolRel = await carol.client.get<(Relationship & { showing_reblogs: boolean })[]>(`/api/v1/accounts/relationships?id[]=${bob.accountId}`);
    expect(carolRel.body[0]?.showing_reblogs).toBe(false);
    const erinRel = await erin.client.get<Relationship[]>(`/api/v1/accounts/relationships?id[]=${alice.accountId}&id[]=${bob.accountId}`);
    expect(erinRel.body.map((r) => r.following)).toEqual([false, false]);
    const followers = await carol.client.get<Account[]>(`/api/v1/accounts/${bob.accountId}/followers`);
    expect(followers.body.map((a) => a.acct).sort()).toEqual(['carol', 'dave']);
    const fayRel = await fay.client.get<(Relationship & { blocking: boolean })[]>(`/api/v1/accounts/relationships?id[]=${bob.accountId}`);
    expect(fayRel.body[0]?.blocking).toBe(true);
    const gusRel = await gus.client.get<(Relationship & { muting: boolean; muting_notifications: boolean })[]>(`/api/v1/accounts/relationships?id[]=${bob.accountId}`);
    expect(gusRel.body[0]).toMatchObject({ muting: true, muting_notifications: false });
    const gusMutes = await gus.client.get<(Account & { mute_expires_at: string | null })[]>('/api/v1/mutes');
    const bobMute = gusMutes.body.find((a) => a.id === bob.accountId);
    expect(bobMute?.mute_expires_at).not.toBeNull();
    expect(Date.parse(bobMute?.mute_expires_at ?? '') - Date.now()).toBeGreaterThan(3500 * 1000);
    // A moved account cannot be followed any more.
    expect((await erin.client.post(`/api/v1/accounts/${alice.accountId}/follow`)).status).toBe(403);
  });

  it('refuses moving again to the same account, and any move within 30 days (cooldown)', async () => {
    const same = await alice.client.post('/api/pleroma/move_account', { password: alice.password, target_account: `bob@${domain}` });
    expect(same.status).toBe(422);
    expect(same.body.error).toMatch(/already moved/);
    expect((await carol.client.put('/api/pleroma/aliases', { alias: `alice@${domain}` })).status).toBe(200);
    const soon = await alice.client.post('/api/pleroma/move_account', { password: alice.password, target_account: `carol@${domain}` });
    expect(soon.status).toBe(422);
    expect(soon.body.error).toMatch(/30 days/);
    setClockTo(Date.now() + 31 * DAY);
    try {
      const later = await alice.client.post('/api/pleroma/move_account', { password: alice.password, target_account: `carol@${domain}` });
      expect(later.status).toBe(200);
    } finally {
      resetClock();
    }
    expect((await dave.client.get<Account>(`/api/v1/accounts/${alice.accountId}`)).body.moved?.id).toBe(carol.accountId);
  });

  it('CLI: hearth account alias add|list|remove and account move', async () => {
    const frank = await inst.createUser('frank');
    const gina = await inst.createUser('gina');
    // Without an origin the CLI does not know the server's port: local accounts go by bare username.
    const cli = async (...args: string[]) => {
      const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
      const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      try {
        const code = await main(['account', ...args, '--data', inst.dataDir]);
        return { code, out: log.mock.calls.map((x) => x.join(' ')).join('\n'), err: err.mock.calls.map((x) => x.join(' ')).join('\n') };
      } finally {
        log.mockRestore();
        err.mockRestore();
      }
    };
    expect((await cli('alias', 'add', '--username', 'gina', '--alias', 'frank')).code).toBe(0);
    const list = await cli('alias', 'list', '--username', 'gina');
    expect(list.code).toBe(0);
    expect(list.out).toContain('/users/frank');
    expect((await gina.client.get('/api/pleroma/aliases')).body.aliases).toHaveLength(1);
    expect((await cli('alias', 'add', '--username', 'gina')).code).toBe(2);
    const bad = await cli('move', '--username', 'frank', '--to', 'erin');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/alias/);
    const moved = await cli('move', '--username', 'frank', '--to', 'gina');
    expect(moved.code).toBe(0);
    expect((await gina.client.get<Account>(`/api/v1/accounts/${frank.accountId}`)).body.moved?.id).toBe(gina.accountId);
    expect((await cli('alias', 'remove', '--username', 'gina', '--alias', 'frank')).code).toBe(0);
    expect((await gina.client.get('/api/pleroma/aliases')).body.aliases).toEqual([]);
  });
});
