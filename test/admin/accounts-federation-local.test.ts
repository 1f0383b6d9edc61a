import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../helpers/instance.js';
import { createUserWithRole } from '../helpers/roles.js';
import { FakeRemote, mastodonPerson, type FakeActor } from '../federation/fake-remote.js';
import { eventually, startFederated } from '../federation/helpers.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;
const AS = 'https://www.w3.org/ns/activitystreams';

/** The actor document as a peer fetches it (unsigned). */
async function fetchActor(url: string): Promise<{ status: number; body: Record<string, unknown> | null }> {
  const res = await fetch(url, { headers: { accept: 'application/activity+json' } });
  return { status: res.status, body: res.ok ? ((await res.json()) as Record<string, unknown>) : null };
}

/**
 * Moderation of a local account reaches the servers of those who follow it, as Mastodon sends it:
 * a suspension is an Update of the actor, which now says `suspended: true` and is served emptied;
 * lifting it is another Update; deleting the account's data is a Delete of the actor, which then
 * answers 410 Gone. A second Hearth instance (bob follows carol there) and a fake Mastodon server
 * (which records what it receives) listen.
 */
describe('admin accounts: suspending and deleting a local account, federated', () => {
  let a: Inst;
  let b: Inst;
  let peer: FakeRemote;
  let fan: FakeActor;
  let kim: TestUser;
  let carol: TestUser;
  let bob: TestUser;
  let carolOnB: string;
  let carolUri: string;
  const updates = () => peer.deliveries('Update').map((u) => u.object as Record<string, unknown>).filter((o) => o.id === carolUri);

  beforeAll(async () => {
    a = await startFederated('127.0.0.150');
    b = await startFederated('127.0.0.151');
    peer = await FakeRemote.start('127.0.0.152');
    kim = await createUserWithRole(a, 'kim', 'admin');
    carol = await a.createUser('carol');
    await carol.client.patch('/api/v1/accounts/update_credentials', { display_name: 'Carol C', note: 'I paint' });
    // A picture, which a suspended actor no longer shows.
    a.deps.db.query("UPDATE accounts SET avatar_file = 'avatars/carol.png' WHERE id = ?").run(carol.accountId);
    bob = await b.createUser('bob');
    carolUri = `${a.origin}/users/carol`;
    fan = await peer.actor('/users/fan', (x) => mastodonPerson(peer, x, 'fan'));
    expect(await peer.send(a.origin, fan, { '@context': AS, id: peer.url('/follows/1'), type: 'Follow', actor: fan.id, object: carolUri })).toBe(202);
    await eventually(() => peer.deliveries('Accept').length > 0);
    carolOnB = (await b.app.federation?.resolveAccount(carolUri))?.id ?? '';
    expect((await bob.client.post(`/api/v1/accounts/${carolOnB}/follow`)).status).toBe(200);
    await eventually(async () => ((await bob.client.get(`/api/v1/accounts/relationships?id[]=${carolOnB}`)).body as { following: boolean }[])[0]?.following);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await peer.close();
  });

  it('suspending sends Update(actor) with suspended: true and serves the actor emptied; unsuspending sends it back whole', async () => {
    const before = updates().length;
    expect((await kim.client.post(`/api/v1/admin/accounts/${carol.accountId}/action`, { type: 'suspend' })).status).toBe(200);
    const suspended = await eventually(() => updates().slice(before).find((o) => o.suspended === true));
    expect(suspended).toMatchObject({ type: 'Person', preferredUsername: 'carol', name: 'carol' });
    expect(suspended.summary ?? '').toBe('');
    expect(suspended).not.toHaveProperty('icon');
    // Served the same way (not 404): peers that fetch it see the suspension too.
    const served = await fetchActor(carolUri);
    expect(served.status).toBe(200);
    expect(served.body).toMatchObject({ id: carolUri, suspended: true, name: 'carol' });
    expect(served.body).toHaveProperty('publicKey');

    expect((await kim.client.post(`/api/v1/admin/accounts/${carol.accountId}/unsuspend`)).status).toBe(200);
    const back = await eventually(() => updates().slice(before).find((o) => o.suspended !== true && o.name === 'Carol C'));
    expect(back.summary).toContain('I paint');
    expect((await fetchActor(carolUri)).body).not.toHaveProperty('suspended');
  });

  it('deleting the data sends Delete(actor): the peers forget the account; the actor is then 410 Gone', async () => {
    expect((await kim.client.post(`/api/v1/admin/accounts/${carol.accountId}/action`, { type: 'suspend' })).status).toBe(200);
    const res = await kim.client.delete(`/api/v1/admin/accounts/${carol.accountId}`);
    expect(res.status, res.text).toBe(200);
    const del = await eventually(() => peer.deliveries('Delete').find((d) => d.object === carolUri));
    expect(del).toMatchObject({ actor: carolUri, object: carolUri });
    // The other Hearth deleted its copy, as when an account deletes itself.
    await eventually(async () => (await bob.client.get(`/api/v1/accounts/${carolOnB}`)).status === 404);
    expect((await fetchActor(carolUri)).status).toBe(410);
  });
});
