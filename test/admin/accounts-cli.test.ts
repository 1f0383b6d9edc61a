import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../api/cli.js';
import { appToken } from '../accounts/helpers.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { createUserWithRole } from '../helpers/roles.js';

/** Runs `hearth …` in this process; returns the exit code and what it printed. */
async function hearth(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const log = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
    stdout += `${parts.join(' ')}\n`;
  });
  const error = vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => {
    stderr += `${parts.join(' ')}\n`;
  });
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    write.mockRestore();
    log.mockRestore();
    error.mockRestore();
  }
}

/** `hearth accounts …` and `hearth role …` on the data directory of a running instance. */
describe('hearth accounts and hearth role', () => {
  let inst: TestInstance;
  let kim: TestUser;
  let app: { token: string };
  beforeAll(async () => {
    inst = await startInstance({ registrations: 'approval' });
    kim = await createUserWithRole(inst, 'kim', 'owner');
    app = appToken(inst);
  });
  afterAll(async () => {
    await inst.close();
  });

  const accounts = (...args: string[]) => hearth(['accounts', ...args, '--data', inst.dataDir]);
  const role = (...args: string[]) => hearth(['role', ...args, '--data', inst.dataDir]);
  async function signUp(username: string, reason: string): Promise<string> {
    const res = await inst.anon.post(
      '/api/v1/accounts',
      { username, email: `${username}@example.test`, password: 'correct horse battery', agreement: true, reason },
      { token: app.token },
    );
    expect(res.status, res.text).toBe(200);
    return res.body.access_token as string;
  }

  it('lists pending sign-ups, approves and rejects them', async () => {
    const lenaToken = await signUp('lena', 'My sister\nis here');
    await signUp('mallory', 'Spam');
    const pending = await accounts('pending');
    expect(pending.code, pending.stderr).toBe(0);
    const lines = pending.stdout.trim().split('\n');
    expect(lines.map((l) => l.split('\t')[0])).toEqual(['lena', 'mallory']);
    expect(lines[0]).toContain('lena@example.test');
    expect(lines[0]).toContain('My sister is here');

    const approved = await accounts('approve', 'lena');
    expect([approved.code, approved.stdout]).toEqual([0, 'approved lena\n']);
    // The running server lets her in at once.
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token: lenaToken })).status).toBe(200);
    expect((await accounts('reject', 'mallory')).stdout).toBe('rejected mallory\n');
    expect((await kim.client.get('/api/v1/admin/accounts?username=mallory')).body).toEqual([]);
    expect((await accounts('pending')).stdout).toBe('');

    const again = await accounts('approve', 'lena');
    expect([again.code, again.stderr]).toEqual([1, 'hearth: lena is not waiting for approval\n']);
    expect((await accounts('reject', 'nobody')).stderr).toBe('hearth: no such user: nobody\n');
    expect((await accounts('approve')).code).toBe(2);
    expect((await accounts('frobnicate')).code).toBe(2);
  });

  it('makes, changes, lists and deletes custom roles, and assigns roles', async () => {
    const made = await role('create', '--name', 'Helper', '--permissions', 'manage_reports,manage_users', '--position', '20', '--color', '#336699', '--highlighted');
    expect(made.code, made.stderr).toBe(0);
    const id = made.stdout.trim();
    expect(id).toMatch(/^\d+$/);
    const list = (await role('list')).stdout.trim().split('\n');
    expect(list[0]).toMatch(/^3\towner \(Owner\)\t1000\t/);
    const helper = list.find((l) => l.startsWith(`${id}\t`));
    expect(helper).toBe(`${id}\tHelper\t20\tmanage_reports,manage_users,invite_users\tbadge\t#336699\t0 users`);

    const sam = await createUserWithRole(inst, 'sam', 'user');
    expect((await role('assign', '--username', 'sam', '--role', 'Helper')).stdout).toBe('sam is now Helper\n');
    expect((await sam.client.get('/api/v1/accounts/verify_credentials')).body.role).toMatchObject({ id, name: 'Helper', color: '#336699' });
    expect((await sam.client.get('/api/v1/admin/accounts')).status).toBe(200);

    expect((await role('update', '--id', id, '--name', 'Report helper', '--no-highlighted', '--permissions', String(0x10))).code).toBe(0);
    const me = (await sam.client.get('/api/v1/accounts/verify_credentials')).body;
    expect(me.role).toMatchObject({ name: 'Report helper', highlighted: false, permissions: String(0x10 | 0x10000) });
    expect((await sam.client.get('/api/v1/admin/accounts')).status).toBe(403);

    expect((await role('assign', '--username', 'sam', '--role', 'moderator')).stdout).toBe('sam is now moderator\n');
    expect((await sam.client.get('/api/v1/accounts/verify_credentials')).body.role.name).toBe('Moderator');
    expect((await role('delete', '--id', id)).stdout).toBe(`deleted ${id}\n`);
    expect((await role('list')).stdout).not.toContain('Report helper');
  });

  it('refuses what would break the rules, and changes nothing then', async () => {
    const before = (await role('list')).stdout;
    const bad = await role('create', '--name', 'Too high', '--position', '1000');
    expect([bad.code, bad.stderr]).toEqual([1, 'hearth: Validation failed: Position must be between 0 and 999\n']);
    expect((await role('create', '--name', 'Odd', '--permissions', 'fly')).code).toBe(2);
    expect((await role('create')).code).toBe(2);
    expect((await role('update', '--id', '1', '--name', 'Mods')).code).toBe(1);
    expect((await role('delete', '--id', '4242')).stderr).toBe('hearth: Record not found\n');
    expect((await role('assign', '--username', 'kim', '--role', 'nothing')).stderr).toBe('hearth: no such role: nothing\n');
    // The only owner cannot be demoted, by `role assign` or the older `account role`.
    const last = await role('assign', '--username', 'kim', '--role', 'admin');
    expect(last.code).toBe(1);
    expect(last.stderr).toContain('the instance needs an owner');
    expect((await hearth(['account', 'role', '--data', inst.dataDir, '--username', 'kim', '--role', 'user'])).code).toBe(1);
    expect((await role('list')).stdout).toBe(before);
    expect((await kim.client.get('/api/v1/accounts/verify_credentials')).body.role.name).toBe('Owner');
    // With a second owner, the first may step down.
    await createUserWithRole(inst, 'lee', 'owner');
    expect((await role('assign', '--username', 'kim', '--role', 'admin')).code).toBe(0);
    expect((await kim.client.get('/api/v1/accounts/verify_credentials')).body.role.name).toBe('Admin');
  });

  it('explains itself', async () => {
    expect((await hearth(['role', '--help'])).stdout).toContain('manage_users');
    expect((await hearth(['accounts', '--help'])).stdout).toContain('approve USERNAME');
    expect((await hearth(['--help'])).stdout).toContain('role list|create|update|delete|assign');
  });
});
