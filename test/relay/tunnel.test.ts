import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRemote, mastodonPerson, PUBLIC, type FakeActor } from '../federation/fake-remote.js';
import { eventually } from '../federation/helpers.js';
import type { TestInstance, TestUser } from '../helpers/instance.js';
import { httpRequest, RELAY_BACKENDS, RelayDatabases, startRelay, startRelayedInstance, type TestRelay } from './rig.js';

const databases = new RelayDatabases();
afterAll(() => databases.stop());

describe.each(RELAY_BACKENDS)('an instance behind a relay on %s', (backend) => {
  let relay: TestRelay;
  let inst: TestInstance & { origin: string };
  let alice: TestUser;
  let peer: FakeRemote;
  let mona: FakeActor;
  beforeAll(async () => {
    relay = await startRelay({ databaseUrl: await databases.url(backend) });
    inst = await startRelayedInstance(relay, '127.0.0.5');
    alice = await inst.createUser('alice');
    peer = await FakeRemote.start('127.0.0.6');
    mona = await peer.actor('/users/mona', (a) => mastodonPerson(peer, a, 'mona'));
  }, 60_000);
  afterAll(async () => {
    await inst?.close();
    await relay?.close();
    await peer?.close();
  });

  it('takes its public origin from the enrolment and reports the tunnel connected', async () => {
    expect(inst.deps.config.origin).toBe(inst.origin);
    const status = await alice.client.get('/api/hearth/relay', { skipSchema: true });
    // alice is not the owner.
    expect(status.status).toBe(403);
    const owner = await inst.createUser('owner', { role: 'owner' });
    const res = await owner.client.get('/api/hearth/relay', { skipSchema: true });
    expect(res.status).toBe(200);
    await eventually(async () => ((await owner.client.get('/api/hearth/relay', { skipSchema: true })).body as { connected: boolean }).connected);
    expect(res.body).toMatchObject({ enabled: true, origin: inst.origin, relay_url: relay.url });
  });

  it('serves the actor and WebFinger at its public host through the tunnel', async () => {
    const actor = await httpRequest(`${inst.origin}/users/alice`, { headers: { accept: 'application/activity+json' } });
    expect(actor.status).toBe(200);
    expect(JSON.parse(actor.text)).toMatchObject({ id: `${inst.origin}/users/alice`, inbox: `${inst.origin}/users/alice/inbox` });
    const wf = await httpRequest(`${inst.origin}/.well-known/webfinger?resource=acct:alice@${new URL(inst.origin).host}`);
    expect(wf.status).toBe(200);
    expect(JSON.parse(wf.text).subject).toBe(`acct:alice@${new URL(inst.origin).host}`);
  });

  it('stores a signed Follow at the relay, replays it, and the instance applies it', async () => {
    const follow = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${mona.id}#follows/1`, type: 'Follow', actor: mona.id, object: `${inst.origin}/users/alice` };
    expect(await peer.send(inst.origin, mona, follow)).toBe(202);
    await eventually(async () => ((await alice.client.get(`/api/v1/accounts/${alice.accountId}/followers`)).body as unknown[]).length === 1);
    // The Accept went out through the relay to mona's inbox (the relay counts what it sent).
    await eventually(() => peer.deliveries('Accept').length === 1);
    const metrics = await httpRequest(`${relay.url}/metrics`);
    expect(metrics.text).toMatch(/hearth_relay_sent_total\{outcome="ok"\} [1-9]/);
    expect(metrics.text).toMatch(/hearth_relay_replayed_total\{tenant="127\.0\.0\.5:\d+"\} 1/);
  });

  it('refuses a delivery with a bad signature at the edge (401) and stores nothing', async () => {
    const note = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${mona.id}/statuses/9/activity`, type: 'Create', actor: mona.id, to: [PUBLIC], object: { id: `${mona.id}/statuses/9`, type: 'Note', attributedTo: mona.id, content: 'x', to: [PUBLIC] } };
    expect(await peer.send(inst.origin, mona, note, { badDigest: true })).toBe(401);
  });
});
