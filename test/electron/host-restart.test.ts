import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ServerHost } from '../../electron/host/server-host.js';
import { alive, ENTRY, eventually, recordStates, requireBuiltEntry, tempPlace } from './host-rig.js';

const setupNeeded = async (url: string) => ((await (await fetch(`${url}/api/hearth/setup`)).json()) as { needed: boolean }).needed;

/**
 * The server host asked to restart on another data directory (the desktop's "move the data" and
 * restore): the running child stops gracefully and a new one serves the other directory. A child
 * stopped from outside (SIGTERM) is not restarted as after a crash. And a child whose host is gone
 * (a host process killed) stops on its own rather than linger.
 */
describe('restarting the server host', () => {
  let place: ReturnType<typeof tempPlace>;
  let host: ServerHost | null = null;
  beforeAll(() => requireBuiltEntry());
  afterEach(async () => {
    await host?.stop();
    host = null;
    place?.remove();
  });

  it('restarts on another data directory, stopping the running server gracefully', async () => {
    place = tempPlace();
    host = new ServerHost({ dataDir: place.dataDir, entry: ENTRY });
    const first = await host.start();
    const fetched = await fetch(`${first.url}/api/hearth/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'kim', email: 'kim@example.test', password: 'long-enough-password-1' }),
    });
    expect(fetched.status).toBe(200);
    expect(await setupNeeded(first.url)).toBe(false);
    const pid = host.pid ?? 0;
    const states = recordStates(host);

    const other = join(place.root, 'moved');
    const info = await host.restart({ dataDir: other });
    expect(states.map((s) => s.state)).toEqual(['restarting', 'starting', 'ready']);
    expect(states[0]).toEqual({ state: 'restarting', delayMs: 0, reason: 'request' });
    expect(alive(pid)).toBe(false);
    expect(host.pid).not.toBe(pid);
    expect(readFileSync(host.logFile, 'utf8')).toContain(`the server (pid ${pid}) ended: code 0`);
    // A new, empty instance in the other directory.
    expect(await setupNeeded(info.url)).toBe(true);
    expect(readFileSync(host.logFile, 'utf8')).toContain(`"dataDir":"${other}"`);

    // Stopped from outside (SIGTERM from the system, Ctrl-C in a terminal): no crash, no restart.
    states.length = 0;
    const second = host.pid ?? 0;
    process.kill(second, 'SIGTERM');
    await eventually(() => host?.state.state === 'stopped');
    expect(states.map((s) => s.state)).toEqual(['stopped']);
    expect(alive(second)).toBe(false);
    expect(host.pid).toBeUndefined();
    // Started again when asked.
    const back = await host.start();
    expect((await fetch(`${back.url}/health`)).status).toBe(200);
  }, 60_000);

  it('has its server stop when the host process is gone', async () => {
    place = tempPlace();
    const hostModule = fileURLToPath(new URL('../../dist/electron/host/server-host.js', import.meta.url));
    const script = `
      const { ServerHost } = await import(${JSON.stringify(hostModule)});
      const host = new ServerHost({ dataDir: ${JSON.stringify(place.dataDir)}, entry: ${JSON.stringify(ENTRY)} });
      await host.start();
      console.log(JSON.stringify({ pid: host.pid }));
    `;
    const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    parent.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const { pid } = JSON.parse(await eventually(() => (out.includes('\n') ? out : null), 30_000)) as { pid: number };
    expect(alive(pid)).toBe(true);
    parent.kill('SIGKILL');
    await eventually(() => !alive(pid), 10_000);
    // It closed the database on its way out (a killed server would leave its write-ahead log).
    expect(existsSync(join(place.dataDir, 'hearth.sqlite3'))).toBe(true);
    expect(existsSync(join(place.dataDir, 'hearth.sqlite3-wal'))).toBe(false);
  }, 60_000);
});
