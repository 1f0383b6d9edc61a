import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../helpers/instance.js';
import { FakeRemote, mastodonPerson, PUBLIC, type FakeActor } from './fake-remote.js';
import { eventually, startFederated } from './helpers.js';
import { POLL_UPDATE_DEBOUNCE_MS } from '../../api/federation/outbound.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;
interface PollStatus { id: string; uri: string; poll: { id: string; votes_count: number } }
interface ApOption { name: string; replies: { totalItems: number } }
interface ApQuestion { type: string; id: string; oneOf?: ApOption[]; anyOf?: ApOption[]; votersCount?: number; endTime?: string; content?: string }

const AS = 'https://www.w3.org/ns/activitystreams';

/** GET of an ActivityPub document by URL, as a remote server would fetch it (unsigned). */
async function fetchAp(url: string): Promise<{ status: number; body: ApQuestion | null }> {
  const res = await fetch(url, { headers: { accept: 'application/activity+json' } });
  return { status: res.status, body: res.ok ? ((await res.json()) as ApQuestion) : null };
}

describe('polls over federation: served as Question, tallies sent once per window', () => {
  let a: Inst;
  let fans: FakeRemote;
  let voters: FakeRemote;
  let fan: FakeActor;
  let voter: FakeActor;
  let alice: TestUser;
  const locals: TestUser[] = [];
  let single: PollStatus;
  beforeAll(async () => {
    a = await startFederated('127.0.0.8');
    fans = await FakeRemote.start('127.0.0.9');
    voters = await FakeRemote.start('127.0.0.10');
    alice = await a.createUser('alice');
    for (let i = 0; i < 9; i++) locals.push(await a.createUser(`voter${i}`));
    fan = await fans.actor('/users/fan', (x) => mastodonPerson(fans, x, 'fan'));
    voter = await voters.actor('/users/vera', (x) => mastodonPerson(voters, x, 'vera'));
    // The fan follows alice (signed Follow); alice is unlocked, so the Accept goes back at once.
    const follow = { '@context': AS, id: fans.url('/follows/1'), type: 'Follow', actor: fan.id, object: `${a.origin}/users/alice` };
    expect(await fans.send(a.origin, fan, follow)).toBe(202);
    await eventually(() => fans.deliveries('Accept').length > 0);
    const created = await alice.client.post('/api/v1/statuses', { status: 'tea or coffee?', visibility: 'public', poll: { options: ['tea', 'coffee'], expires_in: 3600 } });
    expect(created.status).toBe(200);
    single = created.body as PollStatus;
  });
  afterAll(async () => {
    await a.close();
    await fans.close();
    await voters.close();
  });

  it('a poll fetched by its URI is a Question with its options, tallies and votersCount', async () => {
    const res = await fetchAp(single.uri);
    expect(res.status).toBe(200);
    expect(res.body?.type).toBe('Question');
    expect(res.body?.id).toBe(single.uri);
    expect(res.body?.oneOf?.map((o) => [o.name, o.replies.totalItems])).toEqual([['tea', 0], ['coffee', 0]]);
    expect(res.body?.anyOf).toBeUndefined();
    expect(res.body?.votersCount).toBe(0);
    expect(typeof res.body?.endTime).toBe('string');
    expect(res.body?.content).toContain('tea or coffee?');
  });

  it('a multiple-choice poll is served with anyOf; a status without a poll is still a Note', async () => {
    const multi = (await alice.client.post('/api/v1/statuses', { status: 'which fruits?', visibility: 'unlisted', poll: { options: ['apple', 'pear', 'plum'], expires_in: 3600, multiple: true } })).body as PollStatus;
    expect((await locals[0]?.client.post(`/api/v1/polls/${multi.poll.id}/votes`, { choices: ['0', '2'] }))?.status).toBe(200);
    const res = await fetchAp(multi.uri);
    expect(res.body?.type).toBe('Question');
    expect(res.body?.oneOf).toBeUndefined();
    expect(res.body?.anyOf?.map((o) => [o.name, o.replies.totalItems])).toEqual([['apple', 1], ['pear', 0], ['plum', 1]]);
    expect(res.body?.votersCount).toBe(1);
    const plain = (await alice.client.post('/api/v1/statuses', { status: 'no poll here', visibility: 'public' })).body as PollStatus;
    expect((await fetchAp(plain.uri)).body?.type).toBe('Note');
    // A private poll is not served to an anonymous fetch.
    const hidden = (await alice.client.post('/api/v1/statuses', { status: 'secret poll', visibility: 'private', poll: { options: ['x', 'y'], expires_in: 3600 } })).body as PollStatus;
    expect((await fetchAp(hidden.uri)).status).toBe(404);
  });

  it('ten quick votes (nine local, one remote) make one Update(Question) to the follower and one to the remote voter', async () => {
    // Let the Updates of the previous test's vote pass before counting.
    await new Promise((r) => setTimeout(r, POLL_UPDATE_DEBOUNCE_MS + 500));
    const updatesAt = (server: FakeRemote) => server.deliveries('Update').filter((u) => (u.object as { id?: string } | undefined)?.id === single.uri);
    expect(updatesAt(fans)).toHaveLength(0);
    const started = Date.now();
    const vote = { '@context': AS, id: voters.url('/votes/1'), type: 'Create', actor: voter.id, to: [`${a.origin}/users/alice`], object: { id: voters.url('/votes/1/note'), type: 'Note', name: 'coffee', attributedTo: voter.id, inReplyTo: single.uri, to: [`${a.origin}/users/alice`] } };
    expect(await voters.send(a.origin, voter, vote)).toBe(202);
    for (const [i, user] of locals.entries()) {
      expect((await user.client.post(`/api/v1/polls/${single.poll.id}/votes`, { choices: [String(i % 2)] })).status).toBe(200);
    }
    expect(Date.now() - started).toBeLessThan(POLL_UPDATE_DEBOUNCE_MS);
    const first = await eventually(() => updatesAt(fans)[0], 10_000);
    // Nothing more arrives after the window: the ten votes shared one Update.
    await new Promise((r) => setTimeout(r, POLL_UPDATE_DEBOUNCE_MS + 1000));
    expect(updatesAt(fans)).toHaveLength(1);
    const question = first.object as ApQuestion;
    expect(question.type).toBe('Question');
    expect(question.oneOf?.map((o) => o.replies.totalItems)).toEqual([5, 5]);
    expect(question.votersCount).toBe(10);
    expect((first.to as string[] | string | undefined) ?? []).toContain(PUBLIC);
    // The remote voter (who does not follow alice) gets the same single Update.
    await eventually(() => updatesAt(voters).length === 1);
    expect((updatesAt(voters)[0]?.object as ApQuestion).votersCount).toBe(10);
    const poll = (await alice.client.get(`/api/v1/polls/${single.poll.id}`)).body as { votes_count: number; voters_count: number };
    expect(poll).toMatchObject({ votes_count: 10, voters_count: 10 });
  });

  it('an Update still waiting for its window is sent when the federation stops (queued durably)', async () => {
    const queued = () => a.deps.db.query<{ n: number }>("SELECT count(*) AS n FROM federation_queue WHERE queue IN ('outbox', 'fanout') AND message LIKE '%#tallies/%'").get()?.n ?? 0;
    const delivered = () => fans.deliveries('Update').filter((u) => (u.object as { id?: string } | undefined)?.id === single.uri).length;
    expect(queued()).toBe(0);
    const before = delivered();
    const extra = await a.createUser('latecomer');
    expect((await extra.client.post(`/api/v1/polls/${single.poll.id}/votes`, { choices: ['0'] })).status).toBe(200);
    // Stopping at once, well inside the window: the pending Update leaves into the durable queue
    // before the workers stop (they may still deliver it while finishing what they hold).
    await a.app.federation?.stop();
    expect(queued() + delivered() - before).toBe(1);
    a.app.federation?.start();
  });
});
