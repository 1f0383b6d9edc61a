import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../api/config.js';
import { createLocalUser } from '../../api/core/accounts/create.js';
import { issueToken } from '../../api/core/oauth/tokens.js';
import { startServer, type RunningServer } from '../../api/serve.js';
import { TestClient } from '../helpers/client.js';
import { eventually, freePort } from '../federation/helpers.js';

interface Reach { mode: string; origin: string | null; relay_url: string | null; restart_required: boolean; restart_available: boolean; last_restart_error: string | null }

/**
 * `POST /api/hearth/restart`: the server `hearth serve` runs (api/serve.ts) closes and starts again
 * in its process, with the config file read afresh, on the same port; a configuration that does not
 * start is undone.
 */
describe('restarting the server through the API', () => {
  let dataDir: string;
  let file: string;
  let server: RunningServer;
  let owner: TestClient;
  let url: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'hearth-restart-'));
    file = join(dataDir, 'hearth.json');
    writeFileSync(file, JSON.stringify({ federationAllowLoopback: true }));
    server = await startServer(() => resolveConfig({ dataDir, port: 0, bind: '127.0.0.1' }, {}));
    url = server.url;
    const { userId } = await createLocalUser(server.app.deps, { username: 'owner', password: 'owner-password-1', role: 'owner', email: 'owner@example.test' });
    owner = new TestClient(url, issueToken(server.app.deps, { applicationId: null, userId, scopes: ['read', 'write'] }).accessToken);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const reach = async () => (await owner.get<Reach>('/api/hearth/reach')).body;

  it('starts again with the new choice on the same port, after answering 202', async () => {
    const origin = url;
    expect(await reach()).toMatchObject({ mode: 'local', restart_available: true, restart_required: false });
    expect((await owner.put<Reach>('/api/hearth/reach', { mode: 'origin', origin })).body).toMatchObject({ mode: 'origin', origin, restart_required: true });
    // Local-only: no WebFinger yet.
    expect((await fetch(`${url}/.well-known/webfinger?resource=acct:owner@${new URL(url).host}`)).status).toBe(404);
    const before = server.app;

    const res = await owner.post('/api/hearth/restart');
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ restarting: true });

    await eventually(() => server.app !== before && server.app.server !== null);
    expect(server.url).toBe(url);
    // The same data (the token still works), now federating at the origin.
    const after = await eventually(async () => (await owner.get<Reach>('/api/hearth/reach').catch(() => null))?.body);
    expect(after).toEqual({ mode: 'origin', origin, relay_url: null, restart_required: false, restart_available: true, last_restart_error: null });
    expect(server.app.deps.config.origin).toBe(origin);
    const finger = await fetch(`${url}/.well-known/webfinger?resource=acct:owner@${new URL(url).host}`);
    expect(finger.status).toBe(200);
  });

  it('falls back to the configuration it ran with when the new one does not start, and says why', async () => {
    const closed = `http://127.0.0.1:${await freePort('127.0.0.1')}`;
    const chosen = await owner.put<Reach>('/api/hearth/reach', { mode: 'relay', relay_url: closed, relay_code: 'abc', origin: url });
    expect(chosen.body).toMatchObject({ mode: 'relay', restart_required: true });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ relay: closed, relayCode: 'abc' });
    const before = server.app;
    expect((await owner.post('/api/hearth/restart')).status).toBe(202);
    await eventually(() => server.app !== before && server.app.server !== null, 15_000);
    const after = await eventually(async () => (await owner.get<Reach>('/api/hearth/reach').catch(() => null))?.body);
    expect(after).toMatchObject({ mode: 'origin', origin: url, restart_required: false });
    expect(after.last_restart_error).toEqual(expect.any(String));
    // The file is back to what worked, so a later start works too.
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ federationAllowLoopback: true, origin: url });
  }, 30_000);

  it('is the owner’s, with the write scope', async () => {
    const { userId } = await createLocalUser(server.app.deps, { username: 'someone', password: 'someone-password-1', role: 'user', email: 's@example.test' });
    const someone = new TestClient(url, issueToken(server.app.deps, { applicationId: null, userId, scopes: ['read', 'write'] }).accessToken);
    expect((await someone.post('/api/hearth/restart')).status).toBe(403);
    expect((await new TestClient(url).post('/api/hearth/restart')).status).toBe(401);
    const readOnly = issueToken(server.app.deps, { applicationId: null, userId: ownerUserId(server), scopes: ['read'] }).accessToken;
    expect((await owner.withToken(readOnly).post('/api/hearth/restart')).status).toBe(403);
  });
});

/** The owner's user id on the running server. */
function ownerUserId(server: RunningServer): string {
  return server.app.deps.db.query<{ id: string }>("SELECT id FROM users WHERE role = 'owner'").get()?.id ?? '';
}
