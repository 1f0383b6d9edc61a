import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSignInAddress } from '../../api/core/admin/accounts-ips.js';
import { updateAccount } from '../../api/db/repos/accounts.js';
import { insertInvite } from '../../api/db/repos/invites.js';
import { updateUser } from '../../api/db/repos/users.js';
import { newId } from '../../api/util/ids.js';
import { PERMISSION } from '../../api/util/permissions.js';
import { appToken } from '../accounts/helpers.js';
import { Browser } from '../helpers/browser.js';
import { seedRemoteAccount } from '../helpers/fixtures.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { validateEntity } from '../helpers/openapi.js';
import { createCustomRole, createStaff, createUserWithRole } from '../helpers/roles.js';
import { authorizeInBrowser, authorizePath, registerApp } from '../oauth/flow.js';

/** The account ids of a listing, in order. */
const ids = (body: { id: string }[]) => body.map((a) => a.id);

describe('admin accounts: listing, the Admin::Account entity, who may call', () => {
  let inst: TestInstance;
  let staff: Awaited<ReturnType<typeof createStaff>>;
  let pending: { accountId: string; userId: string };
  let invited: TestUser;
  let remote: string;
  let otherRemote: string;
  let app: { token: string; appId: string };

  beforeAll(async () => {
    inst = await startInstance({ registrations: 'approval' });
    staff = await createStaff(inst);
    remote = seedRemoteAccount(inst, 'rita', 'remote.example');
    otherRemote = seedRemoteAccount(inst, 'rob', 'elsewhere.example');
    // A sign-up through the API, waiting for approval, with a reason and a locale.
    app = appToken(inst);
    const res = await inst.anon.post(
      '/api/v1/accounts',
      { username: 'newcomer', email: 'newcomer@example.test', password: 'correct horse battery', agreement: true, locale: 'en', reason: 'I live here' },
      { token: app.token },
    );
    expect(res.status, res.text).toBe(200);
    const row = inst.deps.db.query<{ id: string; account_id: string }>("SELECT u.id, u.account_id FROM users u JOIN accounts a ON a.id = u.account_id WHERE a.username = 'newcomer'").get();
    pending = { accountId: row?.account_id ?? '', userId: row?.id ?? '' };
    // Someone the admin invited.
    const inviteId = newId();
    insertInvite(inst.deps.db, { id: inviteId, user_id: staff.admin.userId, code: 'join-us', max_uses: null, uses: 1, autofollow: 0, comment: null, expires_at: null, created_at: Date.now() });
    invited = await inst.createUser('invitee');
    updateUser(inst.deps.db, invited.userId, { invite_id: inviteId });
  });
  afterAll(async () => {
    await inst.close();
  });

  it('lists every account, newest first, and filters as Mastodon v1 does', async () => {
    const admin = staff.admin.client;
    const all = await admin.get('/api/v1/admin/accounts');
    expect(all.status, all.text).toBe(200);
    const everyone = [staff.owner, staff.admin, staff.moderator, staff.user].map((u) => u.accountId);
    expect(ids(all.body)).toEqual(expect.arrayContaining([...everyone, pending.accountId, remote, otherRemote, invited.accountId]));
    const sorted = [...ids(all.body)].sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1));
    expect(ids(all.body)).toEqual(sorted);

    const local = await admin.get('/api/v1/admin/accounts?local=true');
    expect(local.body.every((a: { domain: string | null }) => a.domain === null)).toBe(true);
    expect(ids(local.body)).toContain(pending.accountId);
    expect(ids((await admin.get('/api/v1/admin/accounts?remote=1')).body).sort()).toEqual([remote, otherRemote].sort());
    expect(ids((await admin.get('/api/v1/admin/accounts?by_domain=remote.example')).body)).toEqual([remote]);
    expect(ids((await admin.get('/api/v1/admin/accounts?pending=true')).body)).toEqual([pending.accountId]);
    expect(ids((await admin.get('/api/v1/admin/accounts?staff=true')).body).sort()).toEqual([staff.owner, staff.admin, staff.moderator].map((u) => u.accountId).sort());
    // Text filters match the start of the value, case-insensitively.
    expect(ids((await admin.get('/api/v1/admin/accounts?username=MODER')).body)).toEqual([staff.moderator.accountId]);
    expect(ids((await admin.get('/api/v1/admin/accounts?username=oderator')).body)).toEqual([]);
    expect(ids((await admin.get('/api/v1/admin/accounts?email=newcomer@')).body)).toEqual([pending.accountId]);
    updateAccount(inst.deps.db, staff.user.accountId, { display_name: 'Plain Person' });
    expect(ids((await admin.get('/api/v1/admin/accounts?display_name=plain')).body)).toEqual([staff.user.accountId]);
    // A false boolean is no filter (Rails' casting), an empty text neither.
    expect((await admin.get('/api/v1/admin/accounts?local=false&username=')).body).toHaveLength(all.body.length);
  });

  it('filters by state: active, disabled, silenced, suspended, sensitized', async () => {
    const admin = staff.admin.client;
    const db = inst.deps.db;
    updateAccount(db, otherRemote, { silenced_at: Date.now() });
    updateAccount(db, remote, { suspended_at: Date.now(), sensitized_at: Date.now() });
    updateUser(db, invited.userId, { disabled: 1 });
    try {
      expect(ids((await admin.get('/api/v1/admin/accounts?silenced=1')).body)).toEqual([otherRemote]);
      expect(ids((await admin.get('/api/v1/admin/accounts?suspended=1')).body)).toEqual([remote]);
      expect(ids((await admin.get('/api/v1/admin/accounts?sensitized=1')).body)).toEqual([remote]);
      expect(ids((await admin.get('/api/v1/admin/accounts?disabled=1')).body)).toEqual([invited.accountId]);
      const active = ids((await admin.get('/api/v1/admin/accounts?active=1')).body);
      expect(active).not.toContain(remote);
      expect(active).toContain(otherRemote);
      // v2 spells them as `status`.
      expect(ids((await admin.get('/api/v2/admin/accounts?status=suspended')).body)).toEqual([remote]);
      expect(ids((await admin.get('/api/v2/admin/accounts?status=disabled&origin=local')).body)).toEqual([invited.accountId]);
    } finally {
      updateAccount(db, otherRemote, { silenced_at: null });
      updateAccount(db, remote, { suspended_at: null, sensitized_at: null });
      updateUser(db, invited.userId, { disabled: 0 });
    }
  });

  it('filters as Mastodon v2 does: origin, status, permissions, roles, inviter; refuses unknown values (400)', async () => {
    const admin = staff.admin.client;
    expect(ids((await admin.get('/api/v2/admin/accounts?origin=remote')).body).sort()).toEqual([remote, otherRemote].sort());
    expect(ids((await admin.get('/api/v2/admin/accounts?origin=local&status=pending')).body)).toEqual([pending.accountId]);
    expect(ids((await admin.get('/api/v2/admin/accounts?permissions=staff&username=o')).body)).toEqual([staff.owner.accountId]);
    expect(ids((await admin.get('/api/v2/admin/accounts?role_ids[]=1')).body)).toEqual([staff.moderator.accountId]);
    expect(ids((await admin.get('/api/v2/admin/accounts?role_ids[]=1&role_ids[]=3')).body).sort()).toEqual([staff.moderator.accountId, staff.owner.accountId].sort());
    expect(ids((await admin.get(`/api/v2/admin/accounts?invited_by=${staff.admin.accountId}`)).body)).toEqual([invited.accountId]);
    // A custom role that may handle reports counts as staff, and is found by its id.
    const roleId = createCustomRole(inst, { name: 'Helper', permissions: PERMISSION.manageReports });
    const helper = await createUserWithRole(inst, 'helper', { customRoleId: roleId });
    expect(ids((await admin.get('/api/v2/admin/accounts?permissions=staff')).body)).toContain(helper.accountId);
    expect(ids((await admin.get(`/api/v2/admin/accounts?role_ids[]=${roleId}`)).body)).toEqual([helper.accountId]);

    for (const [query, error] of [
      ['origin=nowhere', 'Unknown origin: nowhere'],
      ['status=sleepy', 'Unknown status: sleepy'],
      ['permissions=all', 'Unknown permissions: all'],
    ]) {
      const res = await admin.get(`/api/v2/admin/accounts?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body).toEqual({ error });
    }
  });

  it('finds users by an address they used, or a range of addresses', async () => {
    const admin = staff.admin.client;
    recordSignInAddress(inst.deps, staff.moderator.userId, '203.0.113.7');
    recordSignInAddress(inst.deps, staff.user.userId, '::ffff:198.51.100.20');
    expect(ids((await admin.get('/api/v1/admin/accounts?ip=203.0.113.7')).body)).toEqual([staff.moderator.accountId]);
    expect(ids((await admin.get(`/api/v1/admin/accounts?ip=${encodeURIComponent('198.51.100.0/24')}`)).body)).toEqual([staff.user.accountId]);
    expect(ids((await admin.get('/api/v2/admin/accounts?ip=192.0.2.1')).body)).toEqual([]);
    expect(ids((await admin.get('/api/v2/admin/accounts?ip=not-an-address')).body)).toEqual([]);
  });

  it('pages with Link headers, 100 by default and 200 at most', async () => {
    const admin = staff.admin.client;
    const first = await admin.get('/api/v1/admin/accounts?limit=3');
    expect(first.body).toHaveLength(3);
    const link = first.headers.get('link') ?? '';
    const next = /<([^>]+)>; rel="next"/.exec(link)?.[1];
    expect(next).toContain(`max_id=${first.body[2].id}`);
    expect(link).toContain(`min_id=${first.body[0].id}`);
    const second = await admin.get(new URL(next ?? '').pathname + new URL(next ?? '').search);
    expect(second.body.length).toBeGreaterThan(0);
    expect(BigInt(second.body[0].id)).toBeLessThan(BigInt(first.body[2].id));
    const back = await admin.get(`/api/v2/admin/accounts?min_id=${second.body[0].id}&limit=2`);
    expect(ids(back.body)).toEqual(ids(first.body).slice(1, 3));
    expect((await admin.get('/api/v1/admin/accounts?limit=1000')).status).toBe(200);
  });

  it('shows a local account as Admin::Account: e-mail, role, sign-up reason, addresses, app, inviter', async () => {
    const res = await staff.moderator.client.get(`/api/v1/admin/accounts/${pending.accountId}`);
    expect(res.status, res.text).toBe(200);
    expect(validateEntity('AdminAccount', res.body)).toEqual([]);
    expect(res.body).toMatchObject({
      id: pending.accountId,
      username: 'newcomer',
      domain: null,
      email: 'newcomer@example.test',
      locale: 'en',
      role: { id: '-99', name: '', color: '', permissions: String(PERMISSION.inviteUsers), highlighted: false },
      confirmed: true,
      approved: false,
      disabled: false,
      silenced: false,
      suspended: false,
      sensitized: false,
      invite_request: 'I live here',
      created_by_application_id: app.appId,
      account: { id: pending.accountId, username: 'newcomer', acct: 'newcomer' },
    });
    // The sign-up address is known, and is the last one used so far.
    expect(res.body.ips).toHaveLength(1);
    expect(res.body.ip).toBe(res.body.ips[0].ip);
    expect(res.body).not.toHaveProperty('invited_by_account_id');

    const staffView = (await staff.admin.client.get(`/api/v1/admin/accounts/${staff.owner.accountId}`)).body;
    // A user who never chose a language has the instance's default locale (Mastodon's users all
    // have the one they signed up in, else its default), a string as the description says.
    expect(staffView.locale).toBe('en');
    expect(validateEntity('AdminAccount', staffView)).toEqual([]);
    expect(staffView.role).toEqual({ id: '3', name: 'Owner', color: expect.any(String), permissions: expect.any(String), highlighted: true });
    expect(staffView).not.toHaveProperty('created_by_application_id');
    expect((await staff.admin.client.get(`/api/v1/admin/accounts/${invited.accountId}`)).body.invited_by_account_id).toBe(staff.admin.accountId);
  });

  it('records the address of a sign-in on the login page', async () => {
    const client = await registerApp(inst.anon);
    const browser = new Browser(inst.url);
    await authorizeInBrowser(browser, authorizePath(client), staff.owner);
    const res = await staff.admin.client.get(`/api/v1/admin/accounts/${staff.owner.accountId}`);
    expect(res.body.ips.map((i: { ip: string }) => i.ip)).toContain('127.0.0.1');
    expect(res.body.ip).toBe('127.0.0.1');
    expect(Date.now() - Date.parse(res.body.ips[0].used_at)).toBeLessThan(60_000);
  });

  it('shows a remote account without a user: no e-mail, role or user flags', async () => {
    const res = await staff.admin.client.get(`/api/v1/admin/accounts/${remote}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: remote,
      username: 'rita',
      domain: 'remote.example',
      email: null,
      ip: null,
      ips: [],
      role: null,
      locale: null,
      confirmed: null,
      approved: null,
      disabled: null,
      suspended: false,
      account: { acct: 'rita@remote.example' },
    });
    expect((await staff.admin.client.get('/api/v1/admin/accounts/123456789')).body).toEqual({ error: 'Record not found' });
    expect((await staff.admin.client.get('/api/v1/admin/accounts/not-an-id')).status).toBe(404);
  });

  it('answers only staff who may manage users, with an admin scope', async () => {
    const target = staff.user.accountId;
    const reads: [string, string][] = [
      ['GET', '/api/v1/admin/accounts'],
      ['GET', '/api/v2/admin/accounts'],
      ['GET', `/api/v1/admin/accounts/${target}`],
    ];
    const writes: [string, string][] = [
      ['POST', `/api/v1/admin/accounts/${pending.accountId}/approve`],
      ['POST', `/api/v1/admin/accounts/${pending.accountId}/reject`],
      ['POST', `/api/v1/admin/accounts/${target}/action`],
      ['POST', `/api/v1/admin/accounts/${target}/enable`],
      ['POST', `/api/v1/admin/accounts/${target}/unsensitive`],
      ['POST', `/api/v1/admin/accounts/${target}/unsilence`],
      ['POST', `/api/v1/admin/accounts/${target}/unsuspend`],
      ['DELETE', `/api/v1/admin/accounts/${target}`],
      ['POST', `/api/v1/admin/accounts/${target}/role`],
    ];
    const wrongScope = staff.admin.client.withToken(inst.tokenFor(staff.admin, 'read write follow'));
    const readOnly = staff.admin.client.withToken(inst.tokenFor(staff.admin, 'admin:read:accounts'));
    const body = (method: string, json: unknown) => (method === 'GET' ? {} : { json });
    // An app's own token (no user) may carry the admin scopes; it is refused all the same.
    const appOnly = inst.anon.withToken(appToken(inst, 'admin:read admin:write').token);
    for (const [method, path] of [...reads, ...writes]) {
      // As Mastodon's admin controllers: without a token, 403 (no role holds the permission).
      const anonymous = await inst.anon.request(method, path, body(method, {}));
      expect([anonymous.status, anonymous.body], `${method} ${path} anonymous`).toEqual([403, { error: 'This action is not allowed' }]);
      expect((await inst.anon.request(method, path, { ...body(method, {}), token: 'not-a-token' })).status, `${method} ${path} bad token`).toBe(401);
      expect((await appOnly.request(method, path, body(method, {}))).status, `${method} ${path} app token`).toBe(403);
      const scoped = await wrongScope.request(method, path, body(method, {}));
      expect(scoped.status, `${method} ${path} without admin scope`).toBe(403);
      expect(scoped.body.error).toBe('This action is outside the authorized scopes');
      const user = await staff.user.client.request(method, path, body(method, { type: 'silence', role_id: '1' }));
      expect([user.status, user.body], `${method} ${path} as a user`).toEqual([403, { error: 'This action is not allowed' }]);
    }
    // admin:read:accounts reads but does not write.
    for (const [method, path] of reads) expect((await readOnly.request(method, path)).status, path).toBe(200);
    for (const [method, path] of writes) expect((await readOnly.request(method, path, { json: {} })).status, path).toBe(403);
    // A moderator manages users, but deletes no data and gives no roles; nothing was changed.
    expect((await staff.moderator.client.get('/api/v1/admin/accounts')).status).toBe(200);
    expect((await staff.moderator.client.delete(`/api/v1/admin/accounts/${target}`)).body).toEqual({ error: 'This action is not allowed' });
    expect((await staff.moderator.client.post(`/api/v1/admin/accounts/${target}/role`, { role_id: '1' })).status).toBe(403);
    const after = (await staff.admin.client.get(`/api/v1/admin/accounts/${target}`)).body;
    expect(after).toMatchObject({ silenced: false, suspended: false, role: { id: '-99' } });
    expect((await staff.admin.client.get(`/api/v1/admin/accounts/${pending.accountId}`)).body.approved).toBe(false);
  });

  it('is driven by the masto client library', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: staff.admin.token });
    const pendingOnes = await masto.v1.admin.accounts.list({ pending: true });
    expect(pendingOnes.map((a) => a.id)).toEqual([pending.accountId]);
    expect(pendingOnes[0]?.inviteRequest).toBe('I live here');
    const remoteOnes = await masto.v1.admin.accounts.list({ remote: true, byDomain: 'elsewhere.example' });
    expect(remoteOnes.map((a) => a.username)).toEqual(['rob']);
    const paged: string[] = [];
    for await (const page of masto.v1.admin.accounts.list({ local: true, limit: 2 })) paged.push(...page.map((a) => a.id));
    expect(paged).toEqual(ids((await staff.admin.client.get('/api/v1/admin/accounts?local=true')).body));
    const one = await masto.v1.admin.accounts.$select(staff.moderator.accountId).fetch();
    expect(one.role.name).toBe('Moderator');
    expect(one.account.acct).toBe('moderator');
    const user = createRestAPIClient({ url: inst.url, accessToken: staff.user.token });
    await expect(user.v1.admin.accounts.list()).rejects.toThrow(/This action is not allowed/);
  });
});

