import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../api/cli.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { closeSockets, openSocket } from '../streaming/helpers.js';
import { owner, rows } from './helpers.js';

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
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    write.mockRestore();
    log.mockRestore();
    error.mockRestore();
  }
}

/** `hearth announcement …` on the data directory of a running instance. */
describe('hearth announcement', () => {
  let inst: TestInstance;
  let kim: TestUser;
  let alice: TestUser;
  beforeAll(async () => {
    inst = await startInstance();
    kim = await owner(inst, 'kim');
    alice = await inst.createUser('alice');
  });
  afterEach(() => closeSockets());
  afterAll(async () => {
    await inst.close();
  });

  const cli = (...args: string[]) => hearth(['announcement', ...args, '--data', inst.dataDir]);
  const listed = async () => (await alice.client.get('/api/v1/announcements')).body as { id: string; content: string; all_day: boolean }[];

  it('creates one and prints only its id; the running server shows it and streams it', async () => {
    const socket = await openSocket(inst, alice.token);
    await socket.subscribe('user');
    const made = await cli('create', '--text', 'Power cut on Sunday', '--starts-at', '2031-06-01', '--ends-at', '2031-06-02', '--all-day');
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^\d+\n$/);
    const id = made.stdout.trim();
    expect((await listed()).find((a) => a.id === id)).toMatchObject({ content: '<p>Power cut on Sunday</p>', all_day: true });
    // Another process wrote it: the server's scheduler sends it to the streams within a second or so.
    const event = await socket.next((e) => e.event === 'announcement' && e.payload.id === id, 8000);
    expect(event.payload.starts_at).toBe('2031-06-01T00:00:00.000Z');
  });

  it('lists, updates, withdraws, publishes and deletes', async () => {
    const id = (await cli('create', '--text', 'First line\nsecond line')).stdout.trim();
    const later = (await cli('create', '--text', 'Later', '--scheduled-at', '2099-01-01T12:00:00Z')).stdout.trim();
    const list = await cli('list');
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines).toContain(`${id}\tpublished\t-\t-\tFirst line`);
    expect(lines).toContain(`${later}\tscheduled 2099-01-01T12:00:00.000Z\t-\t-\tLater`);
    expect((await listed()).map((a) => a.id)).not.toContain(later);

    const updated = await cli('update', '--id', id, '--text', 'Changed');
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toBe(`updated ${id} (published)\n`);
    expect((await listed()).find((a) => a.id === id)?.content).toBe('<p>Changed</p>');

    expect((await cli('unpublish', '--id', id)).stdout).toBe(`unpublished ${id}\n`);
    expect((await listed()).map((a) => a.id)).not.toContain(id);
    expect((await cli('publish', id)).stdout).toBe(`published ${id}\n`);
    expect((await listed()).map((a) => a.id)).toContain(id);
    expect((await cli('delete', '--id', id)).stdout).toBe(`deleted ${id}\n`);
    expect((await listed()).map((a) => a.id)).not.toContain(id);
    expect((await cli('delete', '--id', id)).code).toBe(1);
  });

  it('refuses bad input (exit 1, Mastodon’s message) and usage mistakes (exit 2), writing nothing', async () => {
    const before = rows(inst, 'announcements');
    const allDay = await cli('create', '--text', 'x', '--all-day');
    expect(allDay.code).toBe(1);
    expect(allDay.stderr).toBe("hearth: Validation failed: Starts at can't be blank, Ends at can't be blank\n");
    const order = await cli('create', '--text', 'x', '--starts-at', '2031-01-02', '--ends-at', '2031-01-01');
    expect(order.code).toBe(1);
    expect(order.stderr).toContain('Ends at must be greater than 2031-01-02T00:00:00.000Z');
    expect((await cli('create', '--text', ' ')).stderr).toContain("Text can't be blank");
    expect((await cli('create', '--text', 'x', '--scheduled-at', 'tomorrow')).stderr).toContain('Scheduled at is invalid');
    expect((await cli('create')).code).toBe(2);
    expect((await cli('update', '--text', 'x')).code).toBe(2);
    expect((await cli('frobnicate')).code).toBe(2);
    expect((await cli('create', '--text', 'x', '--colour', 'red')).code).toBe(2);
    expect((await cli('update', '--id', '999999', '--all-day', '--no-all-day')).code).toBe(2);
    expect((await cli('update', '--id', '999999', '--text', 'x')).stderr).toBe('hearth: Record not found\n');
    expect(rows(inst, 'announcements')).toBe(before);
    const help = await hearth(['announcement', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('create --text T');
    expect((await hearth(['--help'])).stdout).toContain('announcement create|list|update|publish|unpublish|delete');
  });

  it('works as the installed command: the compiled CLI in its own process prints only the id', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'bin', 'hearth.js'), 'announcement', 'create', '--data', inst.dataDir, '--text', 'From a script'], { cwd: root });
    expect(stdout).toMatch(/^\d+\n$/);
    const staff = (await kim.client.get(`/api/v1/admin/announcements/${stdout.trim()}`)).body;
    expect(staff).toMatchObject({ text: 'From a script', published: true });
  }, 30_000);
});
