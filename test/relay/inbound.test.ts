import { generateCryptoKeyPair } from '@fedify/fedify';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { FakeRemote, mastodonPerson, PUBLIC, type FakeActor } from '../federation/fake-remote.js';
import { eventually, freePort } from '../federation/helpers.js';
import { httpRequest, RELAY_BACKENDS, RelayDatabases, startRelay, type RelayRig } from './rig.js';

const AS = 'https://www.w3.org/ns/activitystreams';

/** A tenant's backlog as the store holds it. */
async function backlogOf(relay: RelayRig, host: string): Promise<number> {
  const tenant = await relay.relay.store.tenantByHost(host);
  return tenant ? (await relay.relay.store.backlog(tenant.id)).count : -1;
}

describe.each(RELAY_BACKENDS)('the relay takes inbox deliveries (%s)', (backend) => {
  const databases = new RelayDatabases();
  let relay: RelayRig;
  let peer: FakeRemote;
  let mona: FakeActor;
  let down: Server;
  let downOrigin: string;
  beforeAll(async () => {
    relay = await startRelay({ databaseUrl: await databases.url(backend) });
    peer = await FakeRemote.start('127.0.0.41');
    mona = await peer.actor('/users/mona', (a) => mastodonPerson(peer, a, 'mona'));
    // A server that is down for maintenance: every request answers 503.
    const port = await freePort('127.0.0.43');
    down = createServer((_req, res) => res.writeHead(503).end('maintenance'));
    await new Promise<void>((resolve) => down.listen(port, '127.0.0.43', resolve));
    downOrigin = `http://127.0.0.43:${port}`;
  }, 60_000);
  afterAll(async () => {
    await relay?.close();
    await peer?.close();
    await new Promise<void>((resolve) => (down ? down.close(() => resolve()) : resolve()));
    await databases.stop();
  });

  it('stores a repeated body once (a peer retrying a delivery it saw fail), answering 202 both times', async () => {
    const host = `127.0.0.42:${relay.port}`;
    await relay.addTenant(host);
    const like = { '@context': AS, id: `${mona.id}#likes/1`, type: 'Like', actor: mona.id, object: `http://${host}/users/alice/statuses/1` };
    expect(await peer.send(`http://${host}`, mona, like)).toBe(202);
    // Signed again (a new Date and signature), the same body.
    expect(await peer.send(`http://${host}`, mona, like)).toBe(202);
    expect(await backlogOf(relay, host)).toBe(1);
    // Another body is another message.
    expect(await peer.send(`http://${host}`, mona, { ...like, id: `${mona.id}#likes/2` })).toBe(202);
    expect(await backlogOf(relay, host)).toBe(2);
  });

  it("answers 503 with Retry-After while the signer's key cannot be fetched, 401 once it is gone, and stores neither", async () => {
    const host = `127.0.0.44:${relay.port}`;
    await relay.addTenant(host);
    const keys = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
    const ghost: FakeActor = { id: `${downOrigin}/users/ghost`, keyId: `${downOrigin}/users/ghost#main-key`, inbox: `${downOrigin}/users/ghost/inbox`, publicKeyPem: '', keys };
    const follow = { '@context': AS, id: `${ghost.id}#follows/1`, type: 'Follow', actor: ghost.id, object: `http://${host}/users/alice` };
    const answer = await (async () => {
      const status = await peer.send(`http://${host}`, ghost, follow);
      return status;
    })();
    expect(answer).toBe(503);
    const gone = await peer.actor('/users/gone', (a) => mastodonPerson(peer, a, 'gone'));
    peer.gone('/users/gone');
    expect(await peer.send(`http://${host}`, gone, { ...follow, id: `${gone.id}#follows/1`, actor: gone.id })).toBe(401);
    expect(await backlogOf(relay, host)).toBe(0);
    const raw = await httpRequest(`http://${host}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: JSON.stringify(follow) });
    expect(raw.status).toBe(401);
  });

  it("applies a delivery the relay received hours ago: the signature's freshness is judged by the relay's receipt time", async () => {
    const host = `127.0.0.46:${relay.port}`;
    const code = await relay.addTenant(host);
    const follow = { '@context': AS, id: `${mona.id}#follows/late`, type: 'Follow', actor: mona.id, object: `http://${host}/users/alice` };
    expect(await peer.send(`http://${host}`, mona, follow)).toBe(202);
    // alice exists before the instance first meets its relay.
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-late-'));
    const first = await startInstance({ dataDir });
    await first.createUser('alice');
    await first.close();
    // The instance wakes three hours later: far beyond the hour a signature is good for.
    setClockTo(Date.now() + 3 * 60 * 60 * 1000);
    let inst: TestInstance | null = null;
    try {
      inst = await startInstance({ dataDir, relay: relay.url, relayCode: code, federationAllowLoopback: true });
      const alice = { accountId: String(inst.deps.db.query<{ id: string }>("SELECT id FROM accounts WHERE username = 'alice' AND domain IS NULL").get()?.id), client: inst.anon };
      await eventually(async () => ((await alice.client.get(`/api/v1/accounts/${alice.accountId}/followers`)).body as unknown[]).length === 1, 20_000);
      // The same signature sent to the instance directly now is stale: refused.
      const direct = await peer.send(inst.url, mona, { ...follow, id: `${mona.id}#follows/direct` });
      expect(direct).toBe(401);
    } finally {
      resetClock();
      await inst?.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('over quota sheds Likes and Announces first, never Follows, mentions or Undos, and tells the instance what it shed', async () => {
    const host = `127.0.0.45:${relay.port}`;
    const code = await relay.addTenant(host, 12 * 1024);
    const alice = `http://${host}/users/alice`;
    const send = (activity: Record<string, unknown>) => peer.send(`http://${host}`, mona, { '@context': AS, actor: mona.id, ...activity });
    for (let i = 0; i < 12; i++) expect(await send({ id: `${mona.id}#likes/q${i}`, type: 'Like', object: `${alice}/statuses/${i}` })).toBe(202);
    for (let i = 0; i < 4; i++) expect(await send({ id: `${mona.id}#follows/q${i}`, type: 'Follow', object: alice })).toBe(202);
    expect(await send({ id: `${mona.id}/statuses/q1/activity`, type: 'Create', to: [alice], object: { id: `${mona.id}/statuses/q1`, type: 'Note', attributedTo: mona.id, content: 'for alice', to: [alice], tag: [{ type: 'Mention', href: alice }] } })).toBe(202);
    for (let i = 0; i < 6; i++) expect(await send({ id: `${mona.id}/boosts/q${i}`, type: 'Announce', object: `${alice}/statuses/${i}`, to: [PUBLIC] })).toBe(202);
    expect(await send({ id: `${mona.id}#undo/q1`, type: 'Undo', object: { id: `${mona.id}#follows/q0`, type: 'Follow', actor: mona.id, object: alice } })).toBe(202);
    const tenant = await relay.relay.store.tenantByHost(host);
    const shed = await relay.relay.store.shedCounts(tenant?.id ?? '');
    expect(shed.Like ?? 0).toBeGreaterThan(0);
    expect(shed.Follow ?? 0).toBe(0);
    expect(shed.Create ?? 0).toBe(0);
    expect(shed.Undo ?? 0).toBe(0);
    const backlog = await relay.relay.store.backlog(tenant?.id ?? '');
    // What is kept: the four Follows, the mention and the Undo at least.
    expect(backlog.count).toBeGreaterThanOrEqual(6);
    const metrics = await httpRequest(`${relay.local}/metrics`, { headers: { host: new URL(relay.url).host } });
    expect(metrics.text).toMatch(new RegExp(`hearth_relay_shed_total\\{tenant="${host.replace(/\./g, '\\.')}",type="Like"\\} [1-9]`));
    expect(metrics.text).toMatch(new RegExp(`hearth_relay_backlog_messages\\{tenant="${host.replace(/\./g, '\\.')}"\\} ${backlog.count}`));
    expect(metrics.text).toMatch(/hearth_relay_accept_seconds_count [1-9]/);
    // The instance learns it at login: its status shows what was shed, by type.
    let inst: TestInstance | null = null;
    try {
      inst = await startInstance({ relay: relay.url, relayCode: code, federationAllowLoopback: true });
      const connected = inst;
      const report = await eventually(() => {
        const r = connected.app.relay?.report();
        return r && (r.shed.Like ?? 0) > 0 ? r : null;
      });
      expect(report.shed).toEqual(shed);
      const owner = await connected.createUser('owner', { role: 'owner' });
      const status = await owner.client.get('/api/hearth/relay', { skipSchema: true });
      expect((status.body as { shed: Record<string, number> }).shed.Like).toBe(shed.Like);
      // Everything kept is replayed and acknowledged.
      await eventually(async () => (await backlogOf(relay, host)) === 0, 20_000);
    } finally {
      await inst?.close();
    }
  });
});
