import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMap } from '../../api/core/events.js';
import { findAccountById } from '../../api/db/repos/accounts.js';
import { accountWarningsOf } from '../../api/db/repos/admin-accounts.js';
import { appToken } from '../accounts/helpers.js';
import { postStatus, seedRemoteAccount } from '../helpers/fixtures.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { createStaff } from '../helpers/roles.js';
import { closeSockets, openSocket } from '../streaming/helpers.js';

const ids = (body: { id: string }[]) => body.map((a) => a.id);

describe('admin accounts: approving and rejecting sign-ups', () => {
  let inst: TestInstance;
  let staff: Awaited<ReturnType<typeof createStaff>>;
  let app: { token: string; appId: string };
  const approvedEvents: EventMap['user.approved'][] = [];

  /** Signs up through the API (registrations need approval here); returns the token and account id. */
  async function signUp(username: string): Promise<{ token: string; accountId: string }> {
    const res = await inst.anon.post(
      '/api/v1/accounts',
      { username, email: `${username}@example.test`, password: 'correct horse battery', agreement: true, locale: 'en', reason: 'Family' },
      { token: app.token },
    );
    expect(res.status, res.text).toBe(200);
    const row = inst.deps.db.query<{ id: string }>('SELECT id FROM accounts WHERE username = ? AND domain IS NULL').get(username);
    return { token: res.body.access_token, accountId: row?.id ?? '' };
  }

  beforeAll(async () => {
    inst = await startInstance({ registrations: 'approval' });
    staff = await createStaff(inst);
    app = appToken(inst);
    inst.deps.events.on('user.approved', (e) => approvedEvents.push(e));
  });
  afterAll(async () => {
    await inst.close();
  });

  it('approves a pending sign-up: its token works, staff are told, a second approval is refused', async () => {
    // The instance says sign-ups need approval, as Mastodon's `approval_required`.
    expect((await inst.anon.get('/api/v2/instance')).body.registrations).toMatchObject({ enabled: true, approval_required: true });
    const { token, accountId } = await signUp('cousin');
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token })).body).toEqual({ error: 'Your login is currently pending approval' });
    const res = await staff.moderator.client.post(`/api/v1/admin/accounts/${accountId}/approve`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: accountId, approved: true, username: 'cousin' });
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token })).status).toBe(200);
    expect(approvedEvents.at(-1)).toMatchObject({ accountId });
    // Staff who manage users hear of the new account once it can be used.
    const notes = (await staff.admin.client.get('/api/v1/notifications?types[]=admin.sign_up')).body as { account: { id: string } }[];
    expect(notes.map((n) => n.account.id)).toContain(accountId);
    const again = await staff.moderator.client.post(`/api/v1/admin/accounts/${accountId}/approve`);
    expect([again.status, again.body]).toEqual([403, { error: 'This action is not allowed' }]);
    const remote = seedRemoteAccount(inst, 'far', 'remote.example');
    expect((await staff.moderator.client.post(`/api/v1/admin/accounts/${remote}/approve`)).status).toBe(403);
    expect((await staff.moderator.client.post('/api/v1/admin/accounts/99999999/approve')).status).toBe(404);
  });

  it('rejects a pending sign-up: the account goes, the name and address are free again', async () => {
    const { token, accountId } = await signUp('stranger');
    const res = await staff.moderator.client.post(`/api/v1/admin/accounts/${accountId}/reject`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: accountId, username: 'stranger', approved: false, email: 'stranger@example.test', invite_request: 'Family' });
    expect((await staff.moderator.client.get(`/api/v1/admin/accounts/${accountId}`)).status).toBe(404);
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token })).status).toBe(401);
    expect((await signUp('stranger')).accountId).not.toBe(accountId);
    // An approved account cannot be rejected, and stays.
    const refused = await staff.moderator.client.post(`/api/v1/admin/accounts/${staff.user.accountId}/reject`);
    expect(refused.status).toBe(403);
    expect(findAccountById(inst.deps.db, staff.user.accountId)).toBeDefined();
  });

  it('lets the masto client approve and reject', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: staff.admin.token });
    const a = await signUp('aunt');
    const b = await signUp('uncle');
    expect((await masto.v1.admin.accounts.$select(a.accountId).approve()).approved).toBe(true);
    expect((await masto.v1.admin.accounts.$select(b.accountId).reject()).username).toBe('uncle');
    expect(ids(await masto.v1.admin.accounts.list({ pending: true }))).not.toContain(a.accountId);
  });
});

describe('admin accounts: actions and lifting them', () => {
  let inst: TestInstance;
  let staff: Awaited<ReturnType<typeof createStaff>>;
  let alice: TestUser;
  let bob: TestUser;
  const warned: EventMap['account.warned'][] = [];

  beforeAll(async () => {
    inst = await startInstance();
    staff = await createStaff(inst);
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    inst.deps.events.on('account.warned', (e) => warned.push(e));
  });
  afterAll(async () => {
    await inst.close();
  });

  const action = (client: TestUser['client'], id: string, body: Record<string, unknown>) => client.post(`/api/v1/admin/accounts/${id}/action`, body);
  const publicIds = async () => ids((await bob.client.get('/api/v1/timelines/public?local=true')).body);

  it('refuses a missing or unknown type, an unknown report or preset, and writes nothing', async () => {
    const before = accountWarningsOf(inst.deps.db, alice.accountId).length;
    const missing = await action(staff.moderator.client, alice.accountId, {});
    expect(missing.status).toBe(422);
    expect(missing.body.error).toBe("Validation failed: Type can't be blank, Type is not included in the list");
    expect(missing.body.details.type.map((d: { error: string }) => d.error)).toEqual(['ERR_BLANK', 'ERR_INCLUSION']);
    const unknown = await action(staff.moderator.client, alice.accountId, { type: 'banish' });
    expect([unknown.status, unknown.body.error]).toEqual([422, 'Validation failed: Type is not included in the list']);
    expect((await action(staff.moderator.client, alice.accountId, { type: 'silence', report_id: '12345' })).body).toEqual({ error: 'Record not found' });
    expect((await action(staff.moderator.client, alice.accountId, { type: 'silence', warning_preset_id: '1' })).status).toBe(404);
    expect((await action(staff.moderator.client, '999999', { type: 'silence' })).status).toBe(404);
    expect(accountWarningsOf(inst.deps.db, alice.accountId)).toHaveLength(before);
    expect((await staff.admin.client.get(`/api/v1/admin/accounts/${alice.accountId}`)).body).toMatchObject({ silenced: false, suspended: false });
  });

  it('only acts on accounts below the moderator: never itself, staff above, or a remote login', async () => {
    expect((await action(staff.moderator.client, staff.admin.accountId, { type: 'silence' })).status).toBe(403);
    expect((await action(staff.moderator.client, staff.moderator.accountId, { type: 'suspend' })).status).toBe(403);
    expect((await action(staff.admin.client, staff.owner.accountId, { type: 'disable' })).status).toBe(403);
    const remote = seedRemoteAccount(inst, 'faraway', 'remote.example');
    expect((await action(staff.admin.client, remote, { type: 'disable' })).status).toBe(403);
    expect((await staff.owner.client.get(`/api/v1/admin/accounts/${staff.admin.accountId}`)).body).toMatchObject({ silenced: false, disabled: false });
  });

  it('silences: limited, out of public timelines, open reports resolved, a warning recorded; unsilence lifts it', async () => {
    const status = await postStatus(alice.client, { status: 'Hello, public' });
    expect(await publicIds()).toContain(status.id);
    const report = await bob.client.post('/api/v1/reports', { account_id: alice.accountId, status_ids: [status.id], comment: 'Noisy' });
    expect(report.status, report.text).toBe(200);

    const res = await action(staff.moderator.client, alice.accountId, { type: 'silence', text: 'Please calm down', report_id: report.body.id });
    expect([res.status, res.body]).toEqual([200, {}]);
    expect(await publicIds()).not.toContain(status.id);
    expect((await bob.client.get(`/api/v1/accounts/${alice.accountId}`)).body.limited).toBe(true);
    expect((await staff.moderator.client.get(`/api/v1/admin/accounts/${alice.accountId}`)).body.silenced).toBe(true);
    const [warning] = accountWarningsOf(inst.deps.db, alice.accountId);
    expect(warning).toMatchObject({ action: 'silence', text: 'Please calm down', account_id: staff.moderator.accountId, report_id: report.body.id });
    expect(JSON.parse(warning?.status_ids ?? '[]')).toEqual([status.id]);
    expect(warned.at(-1)).toMatchObject({ targetAccountId: alice.accountId, action: 'silence', notify: true });
    // Alice is told (Mastodon 4.3's `moderation_warning`, from herself), with the AccountWarning.
    const told = (await alice.client.get('/api/v1/notifications?types[]=moderation_warning')).body;
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({
      type: 'moderation_warning',
      account: { id: alice.accountId },
      moderation_warning: { id: warning?.id, action: 'silence', text: 'Please calm down', status_ids: [status.id], target_account: { id: alice.accountId }, appeal: null },
    });
    expect(told[0].moderation_warning.created_at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    const grouped = (await alice.client.get('/api/v2/notifications?types[]=moderation_warning')).body;
    expect(grouped.notification_groups).toEqual([
      expect.objectContaining({ type: 'moderation_warning', group_key: `ungrouped-${told[0].id}`, moderation_warning: told[0].moderation_warning }),
    ]);
    const resolved = inst.deps.db.query<{ action_taken_by_account_id: string | null }>('SELECT action_taken_by_account_id FROM reports WHERE id = ?').get(report.body.id);
    expect(resolved?.action_taken_by_account_id).toBe(staff.moderator.accountId);

    const lifted = await staff.moderator.client.post(`/api/v1/admin/accounts/${alice.accountId}/unsilence`);
    expect(lifted.body.silenced).toBe(false);
    expect(await publicIds()).toContain(status.id);
    // Lifting what is not there is fine.
    expect((await staff.moderator.client.post(`/api/v1/admin/accounts/${alice.accountId}/unsilence`)).status).toBe(200);
  });

  it('a warning alone (none) resolves only its report, and mails only when asked', async () => {
    const first = (await bob.client.post('/api/v1/reports', { account_id: alice.accountId, comment: 'one' })).body.id as string;
    const second = (await bob.client.post('/api/v1/reports', { account_id: alice.accountId, comment: 'two' })).body.id as string;
    expect((await action(staff.moderator.client, alice.accountId, { type: 'none', report_id: first, send_email_notification: 'false' })).status).toBe(200);
    const open = (id: string) => inst.deps.db.query<{ action_taken_at: number | null }>('SELECT action_taken_at FROM reports WHERE id = ?').get(id)?.action_taken_at === null;
    expect(open(first)).toBe(false);
    expect(open(second)).toBe(true);
    expect(warned.at(-1)).toMatchObject({ action: 'none', notify: false });
    // Not asked to tell her: no new `moderation_warning` (the silence above made the only one).
    expect((await alice.client.get('/api/v1/notifications?types[]=moderation_warning')).body).toHaveLength(1);
    expect((await staff.admin.client.get(`/api/v1/admin/accounts/${alice.accountId}`)).body).toMatchObject({ silenced: false, suspended: false, disabled: false });
  });

  it('marks sensitive: every status of the account shows as sensitive; unsensitive lifts it', async () => {
    const status = await postStatus(alice.client, { status: 'A picture, imagine' });
    expect((await action(staff.moderator.client, alice.accountId, { type: 'sensitive' })).status).toBe(200);
    expect((await bob.client.get(`/api/v1/statuses/${status.id}`)).body.sensitive).toBe(true);
    expect((await inst.anon.get(`/api/v1/statuses/${status.id}`)).body.sensitive).toBe(true);
    // Not for its author, as Mastodon's serializer: alice sees her statuses as she wrote them.
    expect((await alice.client.get(`/api/v1/statuses/${status.id}`)).body.sensitive).toBe(false);
    // Streaming likewise: the public stream says sensitive, alice's own home stream does not.
    const mine = await openSocket(inst, alice.token);
    await mine.subscribe('user');
    const everyone = await openSocket(inst, bob.token);
    await everyone.subscribe('public');
    const fresh = await postStatus(alice.client, { status: 'Another picture' });
    expect((await mine.next((e) => e.event === 'update' && e.payload.id === fresh.id, 5000)).payload.sensitive).toBe(false);
    expect((await everyone.next((e) => e.event === 'update' && e.payload.id === fresh.id, 5000)).payload.sensitive).toBe(true);
    closeSockets();
    expect((await staff.moderator.client.get(`/api/v1/admin/accounts/${alice.accountId}`)).body.sensitized).toBe(true);
    expect((await staff.moderator.client.post(`/api/v1/admin/accounts/${alice.accountId}/unsensitive`)).body.sensitized).toBe(false);
    expect((await bob.client.get(`/api/v1/statuses/${status.id}`)).body.sensitive).toBe(false);
  });

  it('disables a login: its tokens stop working until enabled again', async () => {
    expect((await action(staff.admin.client, bob.accountId, { type: 'disable' })).status).toBe(200);
    expect((await bob.client.get('/api/v1/accounts/verify_credentials')).status).toBe(401);
    const admin = (await staff.admin.client.get(`/api/v1/admin/accounts/${bob.accountId}`)).body;
    expect(admin.disabled).toBe(true);
    expect(ids((await staff.admin.client.get('/api/v1/admin/accounts?disabled=true')).body)).toEqual([bob.accountId]);
    expect((await staff.admin.client.post(`/api/v1/admin/accounts/${bob.accountId}/enable`)).body.disabled).toBe(false);
    expect((await bob.client.get('/api/v1/accounts/verify_credentials')).status).toBe(200);
  });

  it('suspends a local account: no API, gone from timelines and its followers’ home; unsuspend brings it back', async () => {
    const carol = await inst.createUser('carol');
    expect((await bob.client.post(`/api/v1/accounts/${carol.accountId}/follow`)).status).toBe(200);
    const status = await postStatus(carol.client, { status: 'Carol was here' });
    const home = async () => ids((await bob.client.get('/api/v1/timelines/home')).body);
    expect(await home()).toContain(status.id);

    expect((await action(staff.moderator.client, carol.accountId, { type: 'suspend' })).status).toBe(200);
    expect((await carol.client.get('/api/v1/accounts/verify_credentials')).status).toBe(401);
    // Mastodon 3.3+: the account is still found, shown suspended and emptied (no longer 410).
    expect((await bob.client.get(`/api/v1/accounts/${carol.accountId}`)).body).toMatchObject({ id: carol.accountId, suspended: true, display_name: '', statuses_count: 0 });
    expect(await home()).not.toContain(status.id);
    expect(await publicIds()).not.toContain(status.id);
    expect((await bob.client.get(`/api/v1/statuses/${status.id}`)).status).toBe(404);
    expect((await staff.moderator.client.get(`/api/v1/admin/accounts/${carol.accountId}`)).body).toMatchObject({ suspended: true, account: { suspended: true } });
    // Unsuspending needs a suspended account.
    expect((await staff.moderator.client.post(`/api/v1/admin/accounts/${bob.accountId}/unsuspend`)).status).toBe(403);

    const back = await staff.moderator.client.post(`/api/v1/admin/accounts/${carol.accountId}/unsuspend`);
    expect(back.body.suspended).toBe(false);
    expect((await carol.client.get('/api/v1/accounts/verify_credentials')).status).toBe(200);
    expect(await home()).toContain(status.id);
    expect((await bob.client.get(`/api/v1/statuses/${status.id}`)).status).toBe(200);
  });

  it('suspends a remote account: its follows of local accounts end', async () => {
    const remote = seedRemoteAccount(inst, 'spammer', 'spam.example');
    const now = Date.now();
    inst.deps.db
      .query('INSERT INTO follows (id, account_id, target_account_id, created_at, updated_at) VALUES (@id, @account_id, @target_account_id, @at, @at)')
      .run({ id: String(BigInt(now) << 16n), account_id: remote, target_account_id: alice.accountId, at: now });
    inst.deps.db.query('UPDATE accounts SET followers_count = followers_count + 1 WHERE id = ?').run(alice.accountId);
    const before = (await alice.client.get('/api/v1/accounts/verify_credentials')).body.followers_count as number;
    expect((await action(staff.moderator.client, remote, { type: 'suspend' })).status).toBe(200);
    expect((await alice.client.get(`/api/v1/accounts/${alice.accountId}/followers`)).body.map((a: { id: string }) => a.id)).not.toContain(remote);
    expect((await alice.client.get('/api/v1/accounts/verify_credentials')).body.followers_count).toBe(before - 1);
    expect((await staff.moderator.client.get(`/api/v1/admin/accounts/${remote}`)).body.suspended).toBe(true);
    expect((await staff.moderator.client.post(`/api/v1/admin/accounts/${remote}/unsuspend`)).body.suspended).toBe(false);
  });

  it('deletes the data of a suspended account: only with "Delete User Data", only once', async () => {
    const dave = await inst.createUser('dave', { email: 'dave@example.test' });
    const status = await postStatus(dave.client, { status: 'Soon gone' });
    expect((await bob.client.post(`/api/v1/accounts/${dave.accountId}/follow`)).status).toBe(200);
    const following = (await bob.client.get('/api/v1/accounts/verify_credentials')).body.following_count as number;
    // Not suspended yet: refused, and nothing goes.
    expect((await staff.admin.client.delete(`/api/v1/admin/accounts/${dave.accountId}`)).status).toBe(403);
    expect((await action(staff.admin.client, dave.accountId, { type: 'suspend' })).status).toBe(200);
    expect((await staff.moderator.client.delete(`/api/v1/admin/accounts/${dave.accountId}`)).status).toBe(403);

    const res = await staff.admin.client.delete(`/api/v1/admin/accounts/${dave.accountId}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: dave.accountId, username: 'dave', email: 'dave@example.test', suspended: true });
    const db = inst.deps.db;
    expect(db.query('SELECT 1 FROM statuses WHERE id = ?').get(status.id)).toBeUndefined();
    expect(db.query('SELECT 1 FROM follows WHERE target_account_id = ?').get(dave.accountId)).toBeUndefined();
    expect(db.query('SELECT 1 FROM users WHERE account_id = ?').get(dave.accountId)).toBeUndefined();
    expect((await bob.client.get('/api/v1/accounts/verify_credentials')).body.following_count).toBe(following - 1);
    // The name stays taken (peers know the actor), shown as a suspended account without a user.
    const after = (await staff.admin.client.get(`/api/v1/admin/accounts/${dave.accountId}`)).body;
    expect(after).toMatchObject({ username: 'dave', suspended: true, email: null, role: null, account: { display_name: '', statuses_count: 0 } });
    expect((await staff.admin.client.delete(`/api/v1/admin/accounts/${dave.accountId}`)).status).toBe(403);
    expect((await staff.admin.client.post(`/api/v1/admin/accounts/${dave.accountId}/unsuspend`)).status).toBe(403);
    await expect(inst.createUser('dave', { email: 'dave2@example.test' })).rejects.toThrow(/taken/);
  });

  it('deletes a suspended remote account as if it had deleted itself', async () => {
    const remote = seedRemoteAccount(inst, 'gone', 'away.example');
    expect((await action(staff.admin.client, remote, { type: 'suspend' })).status).toBe(200);
    const res = await staff.admin.client.delete(`/api/v1/admin/accounts/${remote}`);
    expect(res.body).toMatchObject({ id: remote, domain: 'away.example', suspended: true });
    expect((await staff.admin.client.get(`/api/v1/admin/accounts/${remote}`)).status).toBe(404);
    expect(inst.deps.db.query('SELECT 1 FROM deleted_actors WHERE uri = ?').get('https://away.example/users/gone')).toBeDefined();
  });

  it('lets the masto client act and lift', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: staff.admin.token });
    const erin = await inst.createUser('erin');
    await masto.v1.admin.accounts.$select(erin.accountId).action.create({ type: 'silence', text: 'Shh', sendEmailNotification: false });
    expect((await masto.v1.admin.accounts.$select(erin.accountId).fetch()).silenced).toBe(true);
    expect((await masto.v1.admin.accounts.$select(erin.accountId).unsilence()).silenced).toBe(false);
    await masto.v1.admin.accounts.$select(erin.accountId).action.create({ type: 'suspend' });
    expect((await masto.v1.admin.accounts.$select(erin.accountId).unsuspend()).suspended).toBe(false);
    await masto.v1.admin.accounts.$select(erin.accountId).action.create({ type: 'disable' });
    expect((await masto.v1.admin.accounts.$select(erin.accountId).enable()).disabled).toBe(false);
    await masto.v1.admin.accounts.$select(erin.accountId).action.create({ type: 'sensitive' });
    expect((await masto.v1.admin.accounts.$select(erin.accountId).unsensitive()).sensitized).toBe(false);
  });
});
