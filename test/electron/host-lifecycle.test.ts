import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerHost, type HostState } from '../../electron/host/server-host.js';
import { alive, createOwner, ENTRY, eventually, getJson, nextState, recordStates, requireBuiltEntry, tempPlace } from './host-rig.js';

/**
 * The server host (electron/host/server-host.ts) with real children: it starts the instance in a
 * forked process and says ready once /health answers, gives the owner's token through its messages,
 * restarts the server after a crash (kill -9) with back-off that a healthy run resets, follows an
 * in-process restart, and stops the child gracefully while posts are in flight (the desktop app
 * quitting while a client posts): every acknowledged post is in the database, which passes its
 * integrity check, and the child exits 0 on its own (not killed).
 */
describe('the server host', () => {
  const place = tempPlace();
  // The host's clock, moved forward to stand for a long healthy run.
  let offset = 0;
  let host: ServerHost;
  let states: HostState[];
  let url: string;

  beforeAll(() => {
    requireBuiltEntry();
    host = new ServerHost({ dataDir: place.dataDir, entry: ENTRY, backoff: { initialMs: 50, maxMs: 1000 }, now: () => Date.now() + offset });
    states = recordStates(host);
  });
  afterAll(async () => {
    await host?.stop();
    place.remove();
  });

  it('starts the server in a child and is ready once /health answers', async () => {
    const started = Date.now();
    const info = await host.start();
    const took = Date.now() - started;
    url = info.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info).toEqual({ url, httpsUrl: null, caFile: null, publicOrigin: null });
    expect(states.map((s) => s.state)).toEqual(['starting', 'ready']);
    const ready = host.state;
    expect(ready.state === 'ready' && ready.pid).toBe(host.pid);
    expect(host.pid).not.toBe(process.pid);
    expect(alive(host.pid ?? 0)).toBe(true);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    // The child's output and the host's own lines are in the log beside the data directory.
    expect(host.logFile).toBe(`${place.root}/hearth-server.log`);
    // The log is written through a stream: its last lines may land a moment after ready.
    const log = await eventually(() => {
      const text = readFileSync(host.logFile, 'utf8');
      return text.includes('[host] the server is ready') ? text : null;
    });
    expect(log).toContain(`Hearth is listening on ${url}`);
    console.log(`server host: start to ready of an empty instance: ${took} ms`);
  });

  it('gives the owner’s token (none before there is an owner), which works against the API', async () => {
    expect(await host.ownerToken()).toBeNull();
    await createOwner(url);
    const token = await host.ownerToken();
    expect(token).toEqual(expect.any(String));
    // Reused while it is valid.
    expect(await host.ownerToken()).toBe(token);
    const me = await getJson(`${url}/api/v1/accounts/verify_credentials`, token ?? '');
    expect(me.status).toBe(200);
    expect(me.body.username).toBe('kim');
    expect((await getJson(`${url}/api/v1/apps/verify_credentials`, token ?? '')).body.name).toBe('Hearth desktop');
    // It can write (the owner's settings are write routes), and no more than read and write.
    const posted = await fetch(`${url}/api/v1/statuses`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ status: 'from the desktop' }) });
    expect(posted.status).toBe(200);
    expect((await getJson(`${url}/api/v1/push/subscription`, token ?? '')).status).toBe(403);
    expect((await getJson(`${url}/api/v1/admin/accounts`, token ?? '')).status).toBe(403);
  });

  it('restarts a crashed server (kill -9) at the same address, after a short pause', async () => {
    const before = host.pid ?? 0;
    const oldToken = (await host.ownerToken()) ?? '';
    states.length = 0;
    const ready = nextState(host, 'ready');
    process.kill(before, 'SIGKILL');
    const info = await ready;
    expect(states.map((s) => s.state)).toEqual(['crashed', 'restarting', 'starting', 'ready']);
    expect(states[0]).toEqual({ state: 'crashed', message: 'the server was ended by SIGKILL' });
    expect(states[1]).toEqual({ state: 'restarting', delayMs: 50, reason: 'crash' });
    expect(info.pid).not.toBe(before);
    expect(alive(before)).toBe(false);
    // The same port: the window and other apps find the server where it was.
    expect(info.info.url).toBe(url);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    // A new process issues a new token and revokes the one before.
    const token = (await host.ownerToken()) ?? '';
    expect(token).not.toBe(oldToken);
    expect((await getJson(`${url}/api/v1/accounts/verify_credentials`, token)).status).toBe(200);
    expect((await getJson(`${url}/api/v1/accounts/verify_credentials`, oldToken)).status).toBe(401);
    // Nothing acknowledged was lost.
    const statuses = await getJson(`${url}/api/v1/accounts/verify_credentials`, token);
    expect(statuses.body.statuses_count).toBe(1);
  }, 60_000);

  it('doubles the pause for crashes in a row, and starts afresh after a run that stayed healthy a minute', async () => {
    states.length = 0;
    let ready = nextState(host, 'ready');
    process.kill(host.pid ?? 0, 'SIGKILL');
    await ready;
    expect(states.find((s) => s.state === 'restarting')).toEqual({ state: 'restarting', delayMs: 100, reason: 'crash' });

    offset += 61_000;
    states.length = 0;
    ready = nextState(host, 'ready');
    process.kill(host.pid ?? 0, 'SIGKILL');
    await ready;
    expect(states.find((s) => s.state === 'restarting')).toEqual({ state: 'restarting', delayMs: 50, reason: 'crash' });
  }, 60_000);

  it('follows a restart of the server in its process (POST /api/hearth/restart) with what it serves now', async () => {
    const token = (await host.ownerToken()) ?? '';
    const pid = host.pid;
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const chosen = await fetch(`${url}/api/hearth/reach`, { method: 'PUT', headers: auth, body: JSON.stringify({ mode: 'origin', origin: 'https://kim.example' }) });
    expect(chosen.status).toBe(200);
    const ready = nextState(host, 'ready');
    expect((await fetch(`${url}/api/hearth/restart`, { method: 'POST', headers: auth })).status).toBe(202);
    const again = await ready;
    expect(again.info).toEqual({ url, httpsUrl: null, caFile: null, publicOrigin: 'https://kim.example' });
    expect(again.pid).toBe(pid);
    expect(host.info?.publicOrigin).toBe('https://kim.example');
    // The token given before the restart still works: the same process, the same data.
    expect(await host.ownerToken()).toBe(token);
  }, 60_000);

  it('stops gracefully with writes in flight, keeping every acknowledged post', async () => {
    const token = await host.ownerToken();
    const pid = host.pid ?? 0;
    const total = 300;
    const acknowledged: string[] = [];
    const refused: number[] = [];
    let broken = 0;
    let settled = 0;
    const posts = Array.from({ length: total }, (_, i) =>
      fetch(`${url}/api/v1/statuses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ status: `post number ${i}` }),
      })
        .then(async (res) => {
          if (res.status === 200) acknowledged.push(((await res.json()) as { id: string }).id);
          else refused.push(res.status);
        })
        // A connection the stop cut: not acknowledged.
        .catch(() => broken++)
        .finally(() => settled++),
    );
    await eventually(() => acknowledged.length >= 20, 20_000);
    const settledAtStop = settled;
    states.length = 0;
    await host.stop();
    await Promise.all(posts);

    // The stop came while posts were in flight, and was graceful: the child closed and exited 0.
    expect(settledAtStop).toBeLessThan(total);
    expect(states.map((s) => s.state)).toEqual(['stopping', 'stopped']);
    expect(alive(pid)).toBe(false);
    expect(host.pid).toBeUndefined();
    const log = readFileSync(host.logFile, 'utf8');
    expect(log).toContain('Server stopped');
    expect(log).toContain(`the server (pid ${pid}) ended: code 0`);
    expect(acknowledged.length + refused.length + broken).toBe(total);

    const db = new Database(join(place.dataDir, 'hearth.sqlite3'), { readonly: true });
    try {
      expect(db.prepare('PRAGMA integrity_check').pluck().all()).toEqual(['ok']);
      // Ids are 64-bit: read as text, as the API gives them.
      const stored = new Set(db.prepare('SELECT CAST(id AS TEXT) FROM statuses').pluck().all() as string[]);
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      console.log(`writes in flight: ${acknowledged.length} acknowledged (all stored), ${broken} cut by the stop, ${refused.length} refused; ${stored.size} stored`);
    } finally {
      db.close();
    }

    await expect(host.ownerToken()).rejects.toThrow('not running');
    // Stopping again is nothing.
    await host.stop();
    expect(states.map((s) => s.state)).toEqual(['stopping', 'stopped']);
  }, 60_000);
});
