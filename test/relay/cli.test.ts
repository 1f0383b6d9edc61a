import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, hearth, startProc, waitHealthy, type Proc } from './processes.js';

/** Runs `hearth ARGS` expecting it to fail; resolves with its exit code and error output. */
function failing(args: string[]): { code: number; stderr: string } {
  try {
    hearth(args);
  } catch (err) {
    const e = err as { status: number; stderr: Buffer | string };
    return { code: e.status, stderr: String(e.stderr) };
  }
  throw new Error(`hearth ${args.join(' ')} succeeded`);
}

/** The command-line contract of the relay, as scripts outside the project use it. */
describe('hearth relay (command line)', () => {
  let dataDir: string;
  let port: number;
  let relay: Proc;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'hearth-relay-cli-'));
    port = await freePort();
    relay = startProc([], ['relay', 'serve', '--data', dataDir, '--port', String(port), '--bind', '127.0.0.1', '--domain', 'relay.example']);
    await waitHealthy(`http://127.0.0.1:${port}`, relay);
  }, 60_000);
  afterAll(async () => {
    await relay?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serve answers GET /health with 200 once ready, by address as well as at its domain', async () => {
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    // Anything else at a host that is no tenant's is misdirected.
    expect((await fetch(`http://127.0.0.1:${port}/users/kim`)).status).toBe(421);
  });

  it('tenant add prints only the one-time enrolment code, while the relay runs', () => {
    const code = hearth(['relay', 'tenant', 'add', '--data', dataDir, '--host', 'kim.relay.example']);
    expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}\n$/);
    expect(failing(['relay', 'tenant', 'add', '--data', dataDir, '--host', 'kim.relay.example']).stderr).toMatch(/exists already/);
  });

  it('tenant list, quota, code and remove', () => {
    hearth(['relay', 'tenant', 'add', '--data', dataDir, '--host', 'lee.example', '--quota', '500M']);
    const list = hearth(['relay', 'tenant', 'list', '--data', dataDir]);
    expect(list).toMatch(/kim\.relay\.example\thttps:\/\/kim\.relay\.example\twaiting for enrolment\tbacklog 0 \(0B\)\tcache 0B\tquota 1\.0G/);
    expect(list).toMatch(/lee\.example\thttps:\/\/lee\.example\t.*quota 500\.0M/);
    expect(hearth(['relay', 'tenant', 'quota', '--data', dataDir, '--host', 'lee.example', '--quota', '2G'])).toMatch(/quota of lee\.example: 2\.0G/);
    expect(hearth(['relay', 'tenant', 'code', '--data', dataDir, '--host', 'lee.example'])).toMatch(/^[0-9A-Z]{4}-/);
    expect(hearth(['relay', 'tenant', 'remove', '--data', dataDir, '--host', 'lee.example'])).toMatch(/removed lee\.example/);
    expect(hearth(['relay', 'tenant', 'list', '--data', dataDir])).not.toMatch(/lee\.example/);
    expect(failing(['relay', 'tenant', 'remove', '--data', dataDir, '--host', 'lee.example']).code).toBe(2);
  });

  it('refuses hosts that are not a tenant host, and wrong usage, with exit code 2 or 1 and a message', () => {
    expect(failing(['relay', 'tenant', 'add', '--data', dataDir, '--host', 'localhost']).stderr).toMatch(/needs a domain/);
    expect(failing(['relay', 'tenant', 'add', '--data', dataDir, '--host', 'kim.example:8443']).stderr).toMatch(/no port/);
    expect(failing(['relay', 'tenant', 'add', '--data', dataDir]).code).toBe(2);
    expect(failing(['relay', 'frobnicate']).code).toBe(2);
    expect(failing(['relay', 'serve', '--data', dataDir, '--database', 'mysql://x']).stderr).toMatch(/postgres/);
  });

  it('refuses a second relay process on the same SQLite data directory while the first serves', async () => {
    const second = startProc([], ['relay', 'serve', '--data', dataDir, '--port', String(await freePort()), '--bind', '127.0.0.1']);
    const code = await new Promise<number | null>((resolve) => second.child.once('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    expect(second.output()).toMatch(/another relay process/);
  });

  it('relay status reads an instance that has no relay: not enabled, not connected', () => {
    const instanceDir = mkdtempSync(join(tmpdir(), 'hearth-relay-cli-instance-'));
    try {
      const status = JSON.parse(hearth(['relay', 'status', '--data', instanceDir])) as Record<string, unknown>;
      expect(status).toMatchObject({ enabled: false, connected: false, origin: null, backlog: 0, lastError: null });
    } finally {
      rmSync(instanceDir, { recursive: true, force: true });
    }
  });
});
