import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ServerHost } from '../../electron/host/server-host.js';
import type { ProcessSpawner } from '../../electron/host/spawn.js';
import { alive, ENTRY, eventually, recordStates, requireBuiltEntry, tempPlace } from './host-rig.js';

/**
 * The server host when the server cannot run: a server that crashes at every start is restarted
 * with growing pauses, then given up with a message that says why and where the log is; a host
 * that gave up starts again when asked (after the cause is fixed); a stop during a start ends the
 * child and rejects the start. A log grown too big is moved aside.
 */
describe('the server host when the server fails', () => {
  let place: ReturnType<typeof tempPlace>;
  let host: ServerHost | null = null;
  beforeAll(() => requireBuiltEntry());
  afterEach(async () => {
    await host?.stop();
    host = null;
    place?.remove();
  });

  it('restarts a server that keeps crashing with growing pauses, then gives up and says why', async () => {
    place = tempPlace();
    mkdirSync(place.dataDir, { recursive: true });
    // A config file that cannot be read: the child says so and exits, at every start.
    writeFileSync(join(place.dataDir, 'hearth.json'), '{ "port": ');
    // And a log that grew too big: moved aside when the host starts.
    writeFileSync(join(place.root, 'hearth-server.log'), 'x'.repeat(2000));
    host = new ServerHost({
      dataDir: place.dataDir,
      entry: ENTRY,
      backoff: { initialMs: 20, maxMs: 1000 },
      crashLimit: { count: 3, windowMs: 60_000 },
      maxLogBytes: 1000,
      // So short that the stop at the end cannot finish in time.
      stopTimeoutMs: 1,
    });
    const states = recordStates(host);
    const started = host.start();
    await expect(started).rejects.toThrow(/stopped 3 times within 60 seconds/);
    const failure = host.state;
    expect(failure.state).toBe('failed');
    if (failure.state !== 'failed') return;
    expect(failure.message).toContain('cannot read config file');
    expect(failure.message).toContain(host.logFile);
    expect(failure.logFile).toBe(host.logFile);
    expect(states.map((s) => s.state)).toEqual(['starting', 'crashed', 'restarting', 'starting', 'crashed', 'restarting', 'starting', 'crashed', 'failed']);
    expect(states.filter((s) => s.state === 'restarting').map((s) => s.state === 'restarting' && s.delayMs)).toEqual([20, 40]);
    // The host's last lines reach the file a moment later (the stream writes them as it can).
    const log = await eventually(() => {
      const text = readFileSync(host?.logFile ?? '', 'utf8');
      return text.includes('[host] giving up: The Hearth server stopped 3 times') ? text : null;
    }, 5000);
    expect(log.match(/\[host\] starting the server/g)).toHaveLength(3);
    expect(log).toContain('cannot read config file');
    expect(log).not.toContain('xxx');
    expect(statSync(`${host.logFile}.1`).size).toBe(2000);

    // Fixed: asked again, the host starts it.
    writeFileSync(join(place.dataDir, 'hearth.json'), '{}');
    const info = await host.start();
    expect((await fetch(`${info.url}/health`)).status).toBe(200);
    expect(host.state.state).toBe('ready');

    // A server that does not stop in time is killed.
    const pid = host.pid ?? 0;
    await host.stop();
    expect(alive(pid)).toBe(false);
    expect(host.state.state).toBe('stopped');
    expect(readFileSync(host.logFile, 'utf8')).toContain('the server did not stop within 0.001 s; killing it');
    expect(readFileSync(host.logFile, 'utf8')).toContain(`the server (pid ${pid}) ended: signal SIGKILL`);
  }, 60_000);

  it('fails at once, saying why, when no child can be started', async () => {
    place = tempPlace();
    const spawner: ProcessSpawner = {
      spawn: () => {
        throw new Error('utilityProcess.fork can only be called after the ready event');
      },
    };
    host = new ServerHost({ dataDir: place.dataDir, entry: ENTRY, spawner });
    const states = recordStates(host);
    await expect(host.start()).rejects.toThrow('could not be started: utilityProcess.fork can only be called after the ready event');
    expect(states.map((s) => s.state)).toEqual(['starting', 'failed']);
  });

  it('gives up on a start that is not ready in time, and ends that child', async () => {
    place = tempPlace();
    host = new ServerHost({ dataDir: place.dataDir, entry: ENTRY, readyTimeoutMs: 300, crashLimit: { count: 1, windowMs: 60_000 } });
    const started = host.start().then(
      () => null,
      (err: Error) => err,
    );
    const pid = host.pid ?? 0;
    expect((await started)?.message).toMatch(/stopped once within 60 seconds.*the server was not ready within 0.3 s/);
    expect(alive(pid)).toBe(false);
    expect(host.state).toMatchObject({ state: 'failed', logFile: host.logFile });
  }, 30_000);

  it('ends the child and rejects the start when stopped while starting', async () => {
    place = tempPlace();
    host = new ServerHost({ dataDir: place.dataDir, entry: ENTRY });
    const states = recordStates(host);
    const started = host.start().then(
      () => null,
      (err: Error) => err,
    );
    const pid = host.pid ?? 0;
    expect(alive(pid)).toBe(true);
    await host.stop();
    expect((await started)?.message).toMatch('stopped before it was ready');
    expect(alive(pid)).toBe(false);
    expect(states.map((s) => s.state)).toEqual(['starting', 'stopping', 'stopped']);
  }, 30_000);
});
