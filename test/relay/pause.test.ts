import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRemote, mastodonPerson, type FakeActor } from '../federation/fake-remote.js';
import { eventually } from '../federation/helpers.js';
import type { TestInstance, TestUser } from '../helpers/instance.js';
import { startRelay, startRelayedInstance, type RelayRig } from './rig.js';

const PATH = '/api/hearth/federation';

describe('pausing federation behind a relay', () => {
  let relay: RelayRig;
  let inst: TestInstance & { origin: string };
  let kim: TestUser;
  let peer: FakeRemote;
  let mona: FakeActor;
  beforeAll(async () => {
    relay = await startRelay();
    inst = await startRelayedInstance(relay, '127.0.0.5');
    kim = await inst.createUser('kim', { role: 'owner', scopes: 'read write' });
    peer = await FakeRemote.start('127.0.0.6');
    mona = await peer.actor('/users/mona', (a) => mastodonPerson(peer, a, 'mona'));
  }, 60_000);
  afterAll(async () => {
    await inst?.close();
    await relay?.close();
    await peer?.close();
  });

  const connected = async () => ((await kim.client.get('/api/hearth/relay', { skipSchema: true })).body as { connected: boolean }).connected;
  const followers = async () => ((await kim.client.get(`/api/v1/accounts/${kim.accountId}/followers`)).body as unknown[]).length;

  it('closes the tunnel while paused (the relay keeps the mail) and opens it again on resume, which delivers what waited', async () => {
    await eventually(connected);
    // The relay learns mona's key while the tunnel is up. (The relay runs in this process, whose
    // fetch the instance's connector routes through the tunnel: closed, the relay could not fetch it.)
    await inst.createUser('alice');
    const first = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${mona.id}#follows/0`, type: 'Follow', actor: mona.id, object: `${inst.origin}/users/alice` };
    expect(await peer.send(inst.origin, mona, first)).toBe(202);
    await eventually(() => peer.deliveries('Accept').length === 1);

    expect((await kim.client.put(PATH, { paused: true }, { skipSchema: true })).status).toBe(200);
    await eventually(async () => !(await connected()) && inst.app.relay?.report().connected === false);

    // A peer's Follow arrives at the relay, which stores it; nothing reaches the instance.
    const follow = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${mona.id}#follows/1`, type: 'Follow', actor: mona.id, object: `${inst.origin}/users/kim` };
    expect(await peer.send(inst.origin, mona, follow)).toBe(202);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await followers()).toBe(0);
    expect(inst.app.relay?.report().connected).toBe(false);

    // Resumed: the tunnel is back, the relay replays the Follow, and the Accept goes out.
    expect((await kim.client.put(PATH, { paused: false }, { skipSchema: true })).body).toEqual({ paused: false, since: null });
    await eventually(connected);
    await eventually(async () => (await followers()) === 1);
    await eventually(() => peer.deliveries('Accept').length === 2);
  });
});
