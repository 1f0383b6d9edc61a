import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listFailingPeers } from '../../api/core/federation/delivery-failures.js';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import type { TestUser } from '../helpers/instance.js';
import { FakeRemote, mastodonPerson } from './fake-remote.js';
import { eventually, startFederated } from './helpers.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;

interface FailingPeerJson {
  host: string;
  inbox: string;
  first_failed_at: string;
  last_failed_at: string;
  failures: number;
  last_status: number | null;
  last_error: string;
}

const PATH = '/api/hearth/federation/failing_peers';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('the owner sees which peers deliveries are failing to reach, and since when', () => {
  let inst: Inst;
  let owner: TestUser;
  let bob: TestUser;
  const peers: FakeRemote[] = [];

  beforeAll(async () => {
    inst = await startFederated('127.0.0.2');
    owner = await inst.createUser('kim', { role: 'owner' });
    bob = await inst.createUser('bob', { role: 'admin' });
  });
  afterEach(() => resetClock());
  afterAll(async () => {
    await inst.close();
    await Promise.all(peers.map((p) => p.close().catch(() => {})));
  });

  /** A server whose inbox answers `status` with `body`; the owner follows its actor (a delivery there). */
  async function followPeer(status: number, body = ''): Promise<FakeRemote> {
    const peer = await FakeRemote.start('127.0.0.6');
    peers.push(peer);
    peer.answerPosts('/inbox', status, body);
    const actor = await peer.actor('/users/p', (a) => mastodonPerson(peer, a, 'p'));
    const account = await inst.app.federation?.resolveAccount(actor.id);
    if (!account) throw new Error('peer actor not resolved');
    expect((await owner.client.post(`/api/v1/accounts/${account.id}/follow`)).status).toBe(200);
    return peer;
  }
  const failing = async () => {
    const res = await owner.client.get(PATH);
    expect(res.status).toBe(200);
    return res.body as FailingPeerJson[];
  };
  const entryOf = async (peer: FakeRemote) => (await failing()).find((p) => p.inbox === peer.url('/inbox'));
  const posts = (peer: FakeRemote) => peer.received.filter((r) => r.method === 'POST').length;

  it('lists a peer from its first failure, counts each attempt, and drops it once a delivery succeeds', async () => {
    const before = Date.now();
    const peer = await followPeer(503, `<html><body>Service Unavailable ${'.'.repeat(2000)}</body></html>`);
    const first = await eventually(() => entryOf(peer));
    expect(first).toEqual({
      host: peer.domain,
      inbox: peer.url('/inbox'),
      first_failed_at: expect.stringMatching(ISO),
      last_failed_at: first.first_failed_at,
      failures: 1,
      last_status: 503,
      last_error: expect.stringMatching(/^<html><body>Service Unavailable \.{10}/),
    });
    // A few hundred bytes of the answer, not all of it.
    expect(first.last_error.length).toBeLessThanOrEqual(301);
    expect(Date.parse(first.first_failed_at)).toBeGreaterThanOrEqual(before - 1000);

    // An hour later the retry fails too: still listed, since the first failure.
    const later = Date.now() + 60 * 60 * 1000;
    setClockTo(later);
    const second = await eventually(async () => ((await entryOf(peer))?.failures === 2 ? entryOf(peer) : undefined));
    expect(second.first_failed_at).toBe(first.first_failed_at);
    expect(Date.parse(second.last_failed_at)).toBeGreaterThanOrEqual(later - 1000);

    // The core function another endpoint shows says the same.
    expect(listFailingPeers(inst.deps).find((p) => p.inbox === peer.url('/inbox'))).toMatchObject({ host: peer.domain, failures: 2, lastStatus: 503, firstFailedAt: first.first_failed_at });

    // The peer is back: the next retry is delivered and the peer is no longer listed.
    peer.answerPosts('/inbox', null);
    const attempts = posts(peer);
    setClockTo(Date.now() + 3 * 60 * 60 * 1000);
    await eventually(() => posts(peer) > attempts);
    await eventually(async () => (await entryOf(peer)) === undefined);
  });

  it('a final 4xx is listed with its status; a peer that does not answer, with a null status', async () => {
    const refusing = await followPeer(400, '{"error":"Announce without object"}');
    expect(await eventually(() => entryOf(refusing))).toMatchObject({ failures: 1, last_status: 400, last_error: '{"error":"Announce without object"}' });

    const gone = await FakeRemote.start('127.0.0.6');
    const actor = await gone.actor('/users/p', (a) => mastodonPerson(gone, a, 'p'));
    const account = await inst.app.federation?.resolveAccount(actor.id);
    if (!account) throw new Error('peer actor not resolved');
    await gone.close();
    expect((await owner.client.post(`/api/v1/accounts/${account.id}/follow`)).status).toBe(200);
    const down = await eventually(() => entryOf(gone));
    expect(down).toMatchObject({ host: gone.domain, failures: 1, last_status: null });
    expect(down.last_error).toMatch(/ECONNREFUSED|fetch failed/);
    // Listed the longest failing first.
    const inboxes = (await failing()).map((p) => p.inbox);
    expect(inboxes.indexOf(refusing.url('/inbox'))).toBeLessThan(inboxes.indexOf(gone.url('/inbox')));
  });

  it('is for the owner only: 403 for other users, 401 without a token, 403 without the read scope', async () => {
    const other = await bob.client.get(PATH);
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ error: 'This action is not allowed' });
    expect((await inst.anon.get(PATH)).status).toBe(401);
    const writeOnly = owner.client.withToken(inst.tokenFor(owner, 'write'));
    expect((await writeOnly.get(PATH)).status).toBe(403);
    expect((await owner.client.withToken(inst.tokenFor(owner, 'read')).get(PATH)).status).toBe(200);
  });
});
