import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userHas } from '../../api/core/roles/access.js';
import { findUserById } from '../../api/db/repos/users.js';
import { BUILT_IN_ROLES, PERMISSION } from '../../api/util/permissions.js';
import { seedRemoteAccount } from '../helpers/fixtures.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { createCustomRole, createStaff, createUserWithRole } from '../helpers/roles.js';

describe('roles: shown on accounts, custom roles and their permissions', () => {
  let inst: TestInstance;
  let staff: Awaited<ReturnType<typeof createStaff>>;
  beforeAll(async () => {
    inst = await startInstance();
    staff = await createStaff(inst);
  });
  afterAll(async () => {
    await inst.close();
  });

  it('shows highlighted roles as badges on Account and the whole role on CredentialAccount', async () => {
    const viewer = staff.user.client;
    const badge = async (u: TestUser) => (await viewer.get(`/api/v1/accounts/${u.accountId}`)).body.roles;
    expect(await badge(staff.owner)).toEqual([{ id: '3', name: 'Owner', color: BUILT_IN_ROLES.owner.color }]);
    expect(await badge(staff.moderator)).toEqual([{ id: '1', name: 'Moderator', color: BUILT_IN_ROLES.moderator.color }]);
    expect(await badge(staff.user)).toEqual([]);
    const me = (await staff.admin.client.get('/api/v1/accounts/verify_credentials')).body;
    expect(me.role).toEqual({ id: '2', name: 'Admin', color: BUILT_IN_ROLES.admin.color, permissions: String(BUILT_IN_ROLES.admin.permissions), highlighted: true });
    expect((await viewer.get('/api/v1/accounts/verify_credentials')).body.role).toEqual({ id: '-99', name: '', color: '', permissions: '65536', highlighted: false });
    const remote = seedRemoteAccount(inst, 'far', 'remote.example');
    expect((await viewer.get(`/api/v1/accounts/${remote}`)).body.roles).toEqual([]);
  });

  it('a custom role replaces the built-in one: its badge, its computed permissions, what it may do', async () => {
    const roleId = createCustomRole(inst, { name: 'Gardener', color: '#2e7d32', highlighted: true, position: 20, permissions: PERMISSION.manageUsers });
    expect(Number(roleId)).toBeGreaterThan(3);
    const gardener = await createUserWithRole(inst, 'gardener', { customRoleId: roleId });
    expect((await staff.user.client.get(`/api/v1/accounts/${gardener.accountId}`)).body.roles).toEqual([{ id: roleId, name: 'Gardener', color: '#2e7d32' }]);
    const me = (await gardener.client.get('/api/v1/accounts/verify_credentials')).body;
    // Everyone's permissions (invite users) come with every role, as Mastodon computes them.
    expect(me.role).toEqual({ id: roleId, name: 'Gardener', color: '#2e7d32', permissions: String(PERMISSION.manageUsers | PERMISSION.inviteUsers), highlighted: true });
    const admin = (await staff.admin.client.get(`/api/v1/admin/accounts/${gardener.accountId}`)).body;
    expect(admin.role).toMatchObject({ id: roleId, name: 'Gardener' });

    // Manage Users lets it list accounts; it may not delete data, nor handle reports.
    expect((await gardener.client.get('/api/v1/admin/accounts')).status).toBe(200);
    expect((await gardener.client.post(`/api/v1/admin/accounts/${staff.user.accountId}/approve`)).status).toBe(403);
    const user = findUserById(inst.deps.db, gardener.userId);
    expect(user && userHas(inst.deps, user, PERMISSION.manageUsers)).toBe(true);
    expect(user && userHas(inst.deps, user, PERMISSION.manageReports)).toBe(false);
    // It ranks above the moderator (20 > 10): it may silence a moderator, not an admin.
    expect((await gardener.client.post(`/api/v1/admin/accounts/${staff.moderator.accountId}/action`, { type: 'silence' })).status).toBe(200);
    expect((await gardener.client.post(`/api/v1/admin/accounts/${staff.admin.accountId}/action`, { type: 'silence' })).status).toBe(403);
    await staff.admin.client.post(`/api/v1/admin/accounts/${staff.moderator.accountId}/unsilence`);

    // A role without Manage Users is refused the listing; the administrator flag holds everything.
    const reporterRole = createCustomRole(inst, { name: 'Report reader', permissions: PERMISSION.manageReports });
    const reader = await createUserWithRole(inst, 'reader', { customRoleId: reporterRole });
    expect((await reader.client.get('/api/v1/admin/accounts')).status).toBe(403);
    const rootRole = createCustomRole(inst, { name: 'Root', permissions: PERMISSION.administrator, position: 500 });
    const root = await createUserWithRole(inst, 'root', { customRoleId: rootRole });
    expect((await root.client.get('/api/v1/admin/roles')).status).toBe(200);
  });

  it('a custom role that manages users reaches those below it past their notification policy', async () => {
    const wardenRole = createCustomRole(inst, { name: 'Warden', permissions: PERMISSION.manageUsers, position: 30 });
    const plainRole = createCustomRole(inst, { name: 'Friend', permissions: 0, position: 40 });
    const warden = await createUserWithRole(inst, 'warden', { customRoleId: wardenRole });
    const friend = await createUserWithRole(inst, 'friend', { customRoleId: plainRole });
    const quiet = await createUserWithRole(inst, 'quiet', 'user');
    expect((await quiet.client.patch('/api/v2/notifications/policy', { for_private_mentions: 'drop', for_not_following: 'drop' })).status).toBe(200);
    for (const sender of [warden, friend]) {
      const res = await sender.client.post('/api/v1/statuses', { status: `@quiet a word from ${sender.username}`, visibility: 'direct' });
      expect(res.status).toBe(200);
    }
    const mentions = ((await quiet.client.get('/api/v1/notifications?types[]=mention')).body as { account: { acct: string } }[]).map((n) => n.account.acct);
    // The warden manages users and outranks a user; the friend ranks higher but manages nobody.
    expect(mentions).toEqual(['warden']);
  });

  it('lists the roles for those who may manage roles', async () => {
    const res = await staff.admin.client.get('/api/v1/admin/roles');
    expect(res.status).toBe(200);
    const names = (res.body as { name: string; position: number; id: string }[]).map((r) => [r.id, r.position]);
    expect(names[0]).toEqual(['3', 1000]);
    expect(names.at(-1)).toEqual(['-99', -1]);
    expect(names).toContainEqual(['2', 100]);
    expect((await staff.admin.client.get('/api/v1/admin/roles/1')).body).toMatchObject({ name: 'Moderator', position: 10, highlighted: true });
    expect((await staff.admin.client.get('/api/v1/admin/roles/777')).status).toBe(404);
    expect((await staff.moderator.client.get('/api/v1/admin/roles')).body).toEqual({ error: 'This action is not allowed' });
    expect((await staff.user.client.post('/api/v1/admin/roles', { name: 'Mine' })).status).toBe(403);
    expect((await inst.anon.get('/api/v1/admin/roles')).status).toBe(403);
    expect((await staff.admin.client.withToken(inst.tokenFor(staff.admin, 'read write')).get('/api/v1/admin/roles')).status).toBe(403);
  });

  it('lets staff make and change roles only below their own, with permissions they hold', async () => {
    const admin = staff.admin.client;
    const made = await admin.post('/api/v1/admin/roles', { name: 'Helper', color: '#abc', permissions: PERMISSION.manageReports, position: 50, highlighted: true });
    expect(made.status, made.text).toBe(200);
    expect(made.body).toMatchObject({ name: 'Helper', color: '#abc', permissions: String(PERMISSION.manageReports | PERMISSION.inviteUsers), position: 50, highlighted: true });
    const count = async () => ((await admin.get('/api/v1/admin/roles')).body as unknown[]).length;
    const before = await count();

    const bad = [
      [{ name: '', position: 5 }, "Validation failed: Name can't be blank", 'name'],
      [{ name: 'Helper', position: 5 }, 'Validation failed: Name has already been taken', 'name'],
      [{ name: 'Admin', position: 5 }, 'Validation failed: Name has already been taken', 'name'],
      [{ name: 'Painter', color: 'red', position: 5 }, 'Validation failed: Color is invalid', 'color'],
      [{ name: 'Boss', position: 100 }, 'Validation failed: Position cannot be higher than your current role', 'position'],
      [{ name: 'Boss', position: 5000 }, 'Validation failed: Position must be between 0 and 999, Position cannot be higher than your current role', 'position'],
      [{ name: 'Sysop', permissions: PERMISSION.administrator, position: 5 }, 'Validation failed: Permissions cannot include permissions your current role does not possess', 'permissions'],
      [{ name: 'Weird', permissions: 1 << 30, position: 5 }, 'Validation failed: Permissions is invalid, Permissions cannot include permissions your current role does not possess', 'permissions'],
    ] as const;
    for (const [body, error, field] of bad) {
      const res = await admin.post('/api/v1/admin/roles', body);
      expect([res.status, res.body.error], JSON.stringify(body)).toEqual([422, error]);
      expect(Object.keys(res.body.details)).toEqual([field]);
    }
    expect(await count()).toBe(before);

    const changed = await admin.put(`/api/v1/admin/roles/${made.body.id}`, { name: 'Report helper', highlighted: false });
    expect(changed.body).toMatchObject({ name: 'Report helper', highlighted: false, position: 50, color: '#abc' });
    expect((await admin.put(`/api/v1/admin/roles/${made.body.id}`, { position: 150 })).status).toBe(422);
    // Built-in roles do not change.
    expect((await admin.put('/api/v1/admin/roles/1', { name: 'Mod' })).status).toBe(403);
    expect((await admin.delete('/api/v1/admin/roles/1')).status).toBe(403);

    // The owner may make a role above the admins; then only the owner may change or delete it.
    const high = await staff.owner.client.post('/api/v1/admin/roles', { name: 'Steward', permissions: PERMISSION.administrator, position: 900 });
    expect(high.status, high.text).toBe(200);
    expect((await admin.put(`/api/v1/admin/roles/${high.body.id}`, { name: 'Nope' })).status).toBe(403);
    expect((await admin.delete(`/api/v1/admin/roles/${high.body.id}`)).status).toBe(403);
    expect((await staff.owner.client.delete(`/api/v1/admin/roles/${high.body.id}`)).status).toBe(200);
  });

  it('a staff member may rename their own custom role, not change its permissions or position', async () => {
    const roleId = createCustomRole(inst, { name: 'Keeper', permissions: PERMISSION.manageRoles, position: 60 });
    const keeper = await createUserWithRole(inst, 'keeper', { customRoleId: roleId });
    expect((await keeper.client.put(`/api/v1/admin/roles/${roleId}`, { name: 'Keeper of roles' })).status).toBe(200);
    const res = await keeper.client.put(`/api/v1/admin/roles/${roleId}`, { position: 59, permissions: PERMISSION.manageRoles | PERMISSION.manageUsers });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Validation failed: Permissions cannot be changed with your current role, Position cannot be changed with your current role');
    expect((await keeper.client.delete(`/api/v1/admin/roles/${roleId}`)).status).toBe(403);
  });

  it('deleting a custom role leaves its users with the plain user role', async () => {
    const roleId = createCustomRole(inst, { name: 'Temporary', permissions: PERMISSION.manageUsers, highlighted: true });
    const temp = await createUserWithRole(inst, 'temp', { customRoleId: roleId });
    expect((await staff.admin.client.delete(`/api/v1/admin/roles/${roleId}`)).status).toBe(200);
    expect((await temp.client.get('/api/v1/accounts/verify_credentials')).body.role.id).toBe('-99');
    expect((await staff.user.client.get(`/api/v1/accounts/${temp.accountId}`)).body.roles).toEqual([]);
    expect((await temp.client.get('/api/v1/admin/accounts')).status).toBe(403);
  });

  it('promotes and demotes: below one’s own role only, never oneself', async () => {
    const admin = staff.admin.client;
    const sam = await createUserWithRole(inst, 'sam', 'user');
    const promote = await admin.post(`/api/v1/admin/accounts/${sam.accountId}/role`, { role_id: '1' });
    expect(promote.status, promote.text).toBe(200);
    expect(promote.body.role).toMatchObject({ id: '1', name: 'Moderator' });
    expect((await sam.client.get('/api/v1/admin/accounts')).status).toBe(200);

    const equal = await admin.post(`/api/v1/admin/accounts/${sam.accountId}/role`, { role_id: '2' });
    expect([equal.status, equal.body.error]).toEqual([422, 'Validation failed: Role cannot be higher than your current role']);
    expect((await admin.post(`/api/v1/admin/accounts/${staff.owner.accountId}/role`, { role_id: '-99' })).status).toBe(403);
    expect((await admin.post(`/api/v1/admin/accounts/${staff.admin.accountId}/role`, { role_id: '1' })).status).toBe(403);
    expect((await admin.post(`/api/v1/admin/accounts/${sam.accountId}/role`, {})).body).toEqual({ error: 'Missing required parameter: role_id' });
    expect((await admin.post(`/api/v1/admin/accounts/${sam.accountId}/role`, { role_id: '4242' })).status).toBe(404);
    expect((await admin.post(`/api/v1/admin/accounts/${seedRemoteAccount(inst, 'x', 'remote.example')}/role`, { role_id: '1' })).status).toBe(403);

    // The owner may make an admin, or give a custom role.
    expect((await staff.owner.client.post(`/api/v1/admin/accounts/${sam.accountId}/role`, { role_id: '2' })).body.role.name).toBe('Admin');
    const custom = createCustomRole(inst, { name: 'Greeter', permissions: PERMISSION.inviteUsers });
    expect((await staff.owner.client.post(`/api/v1/admin/accounts/${sam.accountId}/role`, { role_id: custom })).body.role.id).toBe(custom);
    expect((await staff.user.client.get(`/api/v1/accounts/${sam.accountId}`)).body.roles).toEqual([]);
    expect((await staff.owner.client.post(`/api/v1/admin/accounts/${sam.accountId}/role`, { role_id: '-99' })).body.role.id).toBe('-99');
    // Not even the owner changes their own role here (the command line can, keeping an owner).
    expect((await staff.owner.client.post(`/api/v1/admin/accounts/${staff.owner.accountId}/role`, { role_id: '2' })).status).toBe(403);
  });

  it('is reached with the masto client for the account it changes', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: staff.owner.token });
    const pat = await createUserWithRole(inst, 'pat', 'user');
    await staff.owner.client.post(`/api/v1/admin/accounts/${pat.accountId}/role`, { role_id: '1' });
    const seen = await masto.v1.admin.accounts.$select(pat.accountId).fetch();
    expect(seen.role.name).toBe('Moderator');
    const verified = await createRestAPIClient({ url: inst.url, accessToken: pat.token }).v1.accounts.verifyCredentials();
    expect(verified.role?.name).toBe('Moderator');
  });
});
