import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../api/db/migrate.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';

/** `hearth token` as scripts use it: the compiled CLI on a real data directory. */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'hearth.js');
const run = promisify(execFile);
const hearth = async (args: string[]) => (await run(process.execPath, [bin, ...args], { cwd: root })).stdout.trim();

describe('tokens made by `hearth token`', () => {
  let dir: string;
  let inst: TestInstance;
  let token: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-cli-token-'));
    await hearth(['account', 'create', '--data', dir, '--username', 'scripter', '--password', 'scripter-password-1']);
    token = await hearth(['token', '--data', dir, '--username', 'scripter', '--scopes', 'read write']);
    inst = await startInstance({ dataDir: dir });
  });
  afterAll(async () => {
    await inst.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('belong to the command line’s application, so apps/verify_credentials answers for them', async () => {
    const res = await inst.anon.get('/api/v1/apps/verify_credentials', { token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ name: 'Hearth command line', website: null, redirect_uris: ['urn:ietf:wg:oauth:2.0:oob'] });
    expect(res.body.scopes).toEqual(expect.arrayContaining(['read', 'write', 'follow', 'push']));
    const me = await inst.anon.get('/api/v1/accounts/verify_credentials', { token });
    expect(me.status).toBe(200);
    expect(me.body.username).toBe('scripter');
  });

  it('make one application for all of them, which no client can authenticate as', async () => {
    const second = await hearth(['token', '--data', dir, '--username', 'scripter', '--scopes', 'read']);
    const a = await inst.anon.get('/api/v1/apps/verify_credentials', { token });
    const b = await inst.anon.get('/api/v1/apps/verify_credentials', { token: second });
    expect(b.body.id).toBe(a.body.id);
    const apps = inst.deps.db.query<{ n: number }>("SELECT count(*) AS n FROM oauth_applications WHERE client_id = 'hearth-cli'").get();
    expect(apps?.n).toBe(1);
    const attempt = await inst.anon.post('/oauth/token', undefined, { form: { grant_type: 'client_credentials', client_id: 'hearth-cli', client_secret: '' } });
    expect(attempt.status).toBe(401);
    expect(attempt.body.error).toBe('invalid_client');
  });

  it('made before the application existed join it when the database is migrated', async () => {
    const row = inst.deps.db.query<{ user_id: string }>("SELECT users.id AS user_id FROM users JOIN accounts ON accounts.id = users.account_id WHERE accounts.username = 'scripter'").get();
    const old = inst.tokenFor({ userId: row?.user_id ?? '' }, 'read');
    expect((await inst.anon.get('/api/v1/apps/verify_credentials', { token: old })).status).toBe(404);
    // As a database from before migration 0085: no command-line application, and the migration not yet run.
    inst.deps.db.transaction(() => {
      inst.deps.db.query("UPDATE oauth_tokens SET application_id = NULL WHERE application_id IN (SELECT id FROM oauth_applications WHERE client_id = 'hearth-cli')").run();
      inst.deps.db.query("DELETE FROM oauth_applications WHERE client_id = 'hearth-cli'").run();
      inst.deps.db.query('DELETE FROM schema_migrations WHERE version = 85').run();
    });
    expect(migrate(inst.deps.db).applied).toEqual(['0085_cli_application.sql']);
    for (const t of [old, token]) {
      const res = await inst.anon.get('/api/v1/apps/verify_credentials', { token: t });
      expect(res.status).toBe(200);
      expect(res.body.name).toBe('Hearth command line');
    }
  });
});
