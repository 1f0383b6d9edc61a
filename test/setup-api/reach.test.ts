import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { eventually, freePort, startFederated } from '../federation/helpers.js';

interface Reach { mode: string; origin: string | null; relay_url: string | null; restart_required: boolean; restart_available: boolean; last_restart_error: string | null }

const dirs: string[] = [];
const open: TestInstance[] = [];

/** An instance whose data directory holds a config file with `settings` (kept to be read back). */
async function withConfigFile(settings: Record<string, unknown>, flags: Parameters<typeof startInstance>[0] = {}): Promise<{ inst: TestInstance; owner: TestUser; file: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-reach-'));
  dirs.push(dataDir);
  const file = join(dataDir, 'hearth.json');
  writeFileSync(file, JSON.stringify(settings));
  const inst = await startInstance({ ...flags, dataDir });
  open.push(inst);
  return { inst, owner: await inst.createUser('owner', { role: 'owner' }), file };
}

const readFile = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

describe('how the instance is reached (GET/PUT /api/hearth/reach)', () => {
  afterEach(async () => {
    await Promise.all(open.splice(0).map((i) => i.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('shows the running choice, writes a new one into the config file keeping its other settings, and says a restart is needed', async () => {
    const { inst, owner, file } = await withConfigFile({ federationAllowLoopback: true, mail: { host: 'smtp.example', password: 'secret' } });
    expect((await owner.client.get<Reach>('/api/hearth/reach')).body).toEqual({ mode: 'local', origin: null, relay_url: null, restart_required: false, restart_available: false, last_restart_error: null });

    const chosen = await owner.client.put<Reach>('/api/hearth/reach', { mode: 'origin', origin: 'http://127.0.0.9:7470/' });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({ mode: 'origin', origin: 'http://127.0.0.9:7470', relay_url: null, restart_required: true });
    expect(readFile(file)).toEqual({ federationAllowLoopback: true, mail: { host: 'smtp.example', password: 'secret' }, origin: 'http://127.0.0.9:7470' });
    expect((await owner.client.get<Reach>('/api/hearth/reach')).body).toMatchObject({ mode: 'origin', restart_required: true });

    const relay = await owner.client.put<Reach>('/api/hearth/reach', { mode: 'relay', relay_url: 'https://relay.example', relay_code: ' abc123 ' });
    expect(relay.body).toMatchObject({ mode: 'relay', origin: null, relay_url: 'https://relay.example', restart_required: true });
    expect(readFile(file)).toEqual({ federationAllowLoopback: true, mail: { host: 'smtp.example', password: 'secret' }, relay: 'https://relay.example', relayCode: 'abc123' });
    // The relay code is never shown again.
    expect(JSON.stringify((await owner.client.get('/api/hearth/reach')).body)).not.toContain('abc123');

    // Back to what runs: nothing to restart for.
    const local = await owner.client.put<Reach>('/api/hearth/reach', { mode: 'local' });
    expect(local.body).toMatchObject({ mode: 'local', restart_required: false });
    expect(readFile(file)).toEqual({ federationAllowLoopback: true, mail: { host: 'smtp.example', password: 'secret' } });
    void inst;
  });

  it.each([
    [{}, "Validation failed: Mode can't be blank", 'mode'],
    [{ mode: 'tunnel' }, 'Validation failed: Mode is not included in the list', 'mode'],
    [{ mode: 'origin' }, "Validation failed: Origin can't be blank", 'origin'],
    [{ mode: 'origin', origin: 'http://kim.example' }, 'Validation failed: Origin must be an https:// address of a scheme and host only, like https://example.org', 'origin'],
    [{ mode: 'origin', origin: 'https://kim.example/path' }, 'Validation failed: Origin must be an https:// address of a scheme and host only, like https://example.org', 'origin'],
    [{ mode: 'relay', relay_url: 'http://relay.example' }, 'Validation failed: Relay url must be an https:// address of a scheme and host only, like https://example.org', 'relay_url'],
    [{ mode: 'relay', relay_url: 'https://relay.example' }, "Validation failed: Relay code can't be blank (the relay's enrolment code is needed the first time)", 'relay_code'],
    [{ mode: 'relay', relay_url: 'https://relay.example', relay_code: '  ' }, "Validation failed: Relay code can't be blank (the relay's enrolment code is needed the first time)", 'relay_code'],
  ])('refuses %j (https unless loopback federation is allowed) and leaves the file alone', async (body, message, attribute) => {
    const { owner, file } = await withConfigFile({ registrations: 'open' });
    const res = await owner.client.put('/api/hearth/reach', body);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe(message);
    expect(Object.keys(res.body.details)).toEqual([attribute]);
    expect(readFile(file)).toEqual({ registrations: 'open' });
  });

  it('is the owner’s: 401 without a token, 403 for others and for a token without the scope', async () => {
    const { inst, owner } = await withConfigFile({});
    const other = await inst.createUser('other');
    expect((await inst.anon.get('/api/hearth/reach')).status).toBe(401);
    expect((await inst.anon.put('/api/hearth/reach', { mode: 'local' })).status).toBe(401);
    expect((await other.client.get('/api/hearth/reach')).status).toBe(403);
    expect((await other.client.put('/api/hearth/reach', { mode: 'local' })).status).toBe(403);
    expect((await owner.client.withToken(inst.tokenFor(owner, 'read')).put('/api/hearth/reach', { mode: 'local' })).status).toBe(403);
    expect((await owner.client.withToken(inst.tokenFor(owner, 'write')).get('/api/hearth/reach')).status).toBe(403);
    // Not run by `hearth serve`: no restart from here.
    const restart = await owner.client.post('/api/hearth/restart');
    expect(restart.status).toBe(501);
  });

  it('refuses a choice the command line would override (409)', async () => {
    const port = await freePort('127.0.0.1');
    const { owner, file } = await withConfigFile({}, { origin: `http://127.0.0.1:${port}`, port, federationAllowLoopback: true });
    const res = await owner.client.put('/api/hearth/reach', { mode: 'local' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(/command line or in the environment/);
    expect(readFile(file)).toEqual({});
    expect((await owner.client.get<Reach>('/api/hearth/reach')).body).toMatchObject({ mode: 'origin', origin: `http://127.0.0.1:${port}`, restart_required: false });
  });

  it('keeps the origin once other servers know it (409)', async () => {
    const host = '127.0.0.7';
    const port = await freePort(host);
    const origin = `http://${host}:${port}`;
    const { inst, owner, file } = await withConfigFile({ origin, federationAllowLoopback: true }, { bind: host, port });
    // Before anyone knows the instance, the origin may still change.
    expect((await owner.client.put<Reach>('/api/hearth/reach', { mode: 'origin', origin: 'http://127.0.0.8:7470' })).body.restart_required).toBe(true);
    expect((await owner.client.put<Reach>('/api/hearth/reach', { mode: 'origin', origin })).body.restart_required).toBe(false);

    const peer = await startFederated('127.0.0.3');
    open.push(peer);
    const fan = await peer.createUser('fan');
    const found = await fan.client.get(`/api/v2/search?q=${encodeURIComponent(`owner@${host}:${port}`)}&resolve=true&type=accounts`);
    const ownerOnPeer = (found.body as { accounts: { id: string }[] }).accounts[0]?.id;
    expect((await fan.client.post(`/api/v1/accounts/${ownerOnPeer}/follow`)).status).toBe(200);
    await eventually(async () => ((await owner.client.get(`/api/v1/accounts/${owner.accountId}/followers`)).body as unknown[]).length === 1, 60_000);

    for (const body of [{ mode: 'origin', origin: 'http://127.0.0.8:7470' }, { mode: 'local' }, { mode: 'relay', relay_url: 'http://127.0.0.8:7471', relay_code: 'abc' }]) {
      const res = await owner.client.put('/api/hearth/reach', body);
      expect(res.status, JSON.stringify(body)).toBe(409);
      expect(res.body.error).toBe(`This instance has already federated as ${origin}: other servers know its accounts by that address, so the origin cannot change any more (followers and follows would be lost).`);
    }
    // A relay in front of the same origin (a domain of one's own pointed at the relay) is no change of identity.
    const viaRelay = await owner.client.put<Reach>('/api/hearth/reach', { mode: 'relay', relay_url: 'http://127.0.0.8:7471', relay_code: 'abc', origin });
    expect(viaRelay.status).toBe(200);
    expect(readFile(file)).toEqual({ origin, federationAllowLoopback: true, relay: 'http://127.0.0.8:7471', relayCode: 'abc' });
    void inst;
  }, 120_000);
});
