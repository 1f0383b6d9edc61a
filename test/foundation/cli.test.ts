import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The `hearth` command as scripts use it: the compiled CLI (npm test builds first), run as a
 * separate process on a real data directory.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'hearth.js');
const run = promisify(execFile);

async function hearth(args: string[], env: NodeJS.ProcessEnv = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Starts `hearth serve` and resolves once it printed its URL (with everything printed so far). */
function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', ...args], { cwd: root, env: { ...process.env, ...env } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      // Wait for the lines printed after the URL too (origin, setup hint).
      if (m) setTimeout(() => resolve({ child, url: m[1] ?? '', output: () => out }), 100);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

describe('hearth CLI', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-cli-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints usage and exits 2 on an unknown command or flag', async () => {
    expect((await hearth(['frobnicate'])).code).toBe(2);
    const bad = await hearth(['serve', '--no-such-flag']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Usage: hearth');
    expect((await hearth(['--help'])).stdout).toContain('account create');
  });

  it('migrates, creates the owner, lists accounts and prints a token that works', async () => {
    // Eleven CLI processes and a server, each loading the compiled app: on a loaded 2-core machine each takes seconds.
    const data = join(dir, 'one');
    expect((await hearth(['migrate', '--data', data])).stdout).toMatch(/schema version \d+/);
    const created = await hearth(['account', 'create', '--data', data, '--username', 'kim', '--password', 'correct-horse-1', '--role', 'owner', '--email', 'kim@example.test']);
    expect(created.code, created.stderr).toBe(0);
    const dup = await hearth(['account', 'create', '--data', data, '--username', 'KIM', '--password', 'correct-horse-1']);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain('taken');
    const short = await hearth(['account', 'create', '--data', data, '--username', 'sam', '--password', 'short']);
    expect(short.code).toBe(1);
    expect((await hearth(['account', 'create', '--data', data, '--username', 'sam', '--password', 'long-enough-1', '--role', 'boss'])).code).toBe(2);
    expect((await hearth(['account', 'create', '--data', data, '--username', 'sam', '--password', 'long-enough-1'])).code).toBe(0);
    expect((await hearth(['account', 'role', '--data', data, '--username', 'sam', '--role', 'moderator'])).code).toBe(0);
    const list = await hearth(['account', 'list', '--data', data]);
    expect(list.stdout).toMatch(/^kim\towner\tkim@example\.test\tapproved$/m);
    expect(list.stdout).toMatch(/^sam\tmoderator\t/m);
    const token = await hearth(['token', '--data', data, '--username', 'kim', '--scopes', 'read']);
    expect(token.stdout).toMatch(/^[A-Za-z0-9_-]{40,}\n$/);
    expect((await hearth(['token', '--data', data, '--username', 'kim', '--scopes', 'read bogus'])).code).toBe(2);

    const server = await serve(['--data', data, '--port', '0']);
    try {
      expect(server.output()).not.toContain('/setup');
      const me = await fetch(`${server.url}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${token.stdout.trim()}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { username: string }).username).toBe('kim');
      expect((await hearth(['account', 'password', '--data', data, '--username', 'kim', '--password', 'another-horse-2'])).code).toBe(0);
    } finally {
      await stop(server.child);
    }
  }, 120_000);

  it('serves with settings from the environment and the config file, and points a first run to /setup', async () => {
    const data = join(dir, 'two');
    const first = await hearth(['migrate'], { HEARTH_DATA: data });
    expect(first.code).toBe(0);
    writeFileSync(join(data, 'hearth.json'), JSON.stringify({ registrations: 'open' }));
    const server = await serve([], { HEARTH_DATA: data, HEARTH_PORT: '0', HEARTH_BIND: '127.0.0.1' });
    try {
      expect(server.output()).toMatch(/\/setup\?token=[A-Za-z0-9_-]+/);
      expect(server.output()).toContain('Local-only');
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
      const instance = (await (await fetch(`${server.url}/api/v1/instance`)).json()) as { registrations: boolean };
      expect(instance.registrations).toBe(true);
    } finally {
      await stop(server.child);
    }
  });

  it('with --registrations open, a sign-up returns a token that works at once', async () => {
    const data = join(dir, 'three');
    const server = await serve(['--data', data, '--port', '0', '--registrations', 'open']);
    try {
      const app = (await (
        await fetch(`${server.url}/api/v1/apps`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'signup', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write' }),
        })
      ).json()) as { client_id: string; client_secret: string };
      const appToken = (await (
        await fetch(`${server.url}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret, scope: 'write' }),
        })
      ).json()) as { access_token: string };
      const signup = await fetch(`${server.url}/api/v1/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${appToken.access_token}` },
        body: JSON.stringify({ username: 'robin', email: 'robin@example.test', password: 'robin-password-1', agreement: true, locale: 'en' }),
      });
      expect(signup.status).toBe(200);
      const { access_token } = (await signup.json()) as { access_token: string };
      const me = await fetch(`${server.url}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${access_token}` } });
      expect(me.status).toBe(200);
    } finally {
      await stop(server.child);
    }
  });
});
