import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { follow, post } from './helpers.js';

describe('polls', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
  });
  afterAll(async () => {
    await inst.close();
  });
  afterEach(() => resetClock());

  async function pollStatus(poll: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    return post(alice.client, { status: 'a question', poll: { expires_in: 3600, ...poll }, ...extra });
  }

  it('shows a public poll to anyone, with voted/own_votes only for signed-in viewers', async () => {
    const status = await pollStatus({ options: ['yes', 'no'] });
    const pollId = status.poll.id;
    const anon = await inst.anon.get(`/api/v1/polls/${pollId}`);
    expect(anon.status).toBe(200);
    expect(anon.body).toMatchObject({ id: pollId, expired: false, multiple: false, votes_count: 0, voters_count: 0, emojis: [] });
    expect(anon.body.options).toEqual([{ title: 'yes', votes_count: 0 }, { title: 'no', votes_count: 0 }]);
    expect(anon.body.voted).toBeUndefined();
    const mine = await bob.client.get(`/api/v1/polls/${pollId}`);
    expect(mine.body.voted).toBe(false);
    expect(mine.body.own_votes).toEqual([]);
  });

  it('takes one vote on a single-choice poll and counts votes and voters', async () => {
    const status = await pollStatus({ options: ['tea', 'coffee', 'water'] });
    const pollId = status.poll.id;
    const vote = await bob.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [1] });
    expect(vote.status, vote.text).toBe(200);
    expect(vote.body.voted).toBe(true);
    expect(vote.body.own_votes).toEqual([1]);
    expect(vote.body.votes_count).toBe(1);
    expect(vote.body.voters_count).toBe(1);
    expect(vote.body.options[1]).toEqual({ title: 'coffee', votes_count: 1 });
    const form = await carol.client.post(`/api/v1/polls/${pollId}/votes`, undefined, { form: { 'choices[]': ['1'] } });
    expect(form.status, form.text).toBe(200);
    expect(form.body.votes_count).toBe(2);
    expect(form.body.voters_count).toBe(2);
    // The author sees the tallies and counts as having voted.
    const own = await alice.client.get(`/api/v1/polls/${pollId}`);
    expect(own.body.voted).toBe(true);
    expect(own.body.own_votes).toEqual([]);
    expect(own.body.options.map((o: { votes_count: number }) => o.votes_count)).toEqual([0, 2, 0]);
    // The Status carries the same poll.
    const seen = await bob.client.get(`/api/v1/statuses/${status.id}`);
    expect(seen.body.poll.own_votes).toEqual([1]);
  });

  it('refuses a second vote, several choices on a single-choice poll, bad choices, and own polls', async () => {
    const status = await pollStatus({ options: ['a', 'b'] });
    const pollId = status.poll.id;
    const two = await bob.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [0, 1] });
    expect(two.status).toBe(422);
    expect(two.body.error).toBe('Validation failed: You have already voted on this poll');
    const bad = await bob.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [2] });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toBe('Validation failed: The chosen vote option does not exist');
    expect((await bob.client.post(`/api/v1/polls/${pollId}/votes`, { choices: ['x'] })).status).toBe(422);
    const missing = await bob.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [] });
    expect(missing.status).toBe(400);
    expect((await bob.client.post(`/api/v1/polls/${pollId}/votes`, {})).status).toBe(400);
    const self = await alice.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [0] });
    expect(self.status).toBe(422);
    expect(self.body.error).toBe('Validation failed: You cannot vote in your own polls');
    // Nothing was written by the refused votes.
    expect((await bob.client.get(`/api/v1/polls/${pollId}`)).body).toMatchObject({ votes_count: 0, voters_count: 0, own_votes: [] });
    expect((await bob.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [0] })).status).toBe(200);
    const again = await bob.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [1] });
    expect(again.status).toBe(422);
    expect(again.body.error).toBe('Validation failed: You have already voted on this poll');
  });

  it('takes several choices on a multiple-choice poll, counting one voter', async () => {
    const status = await pollStatus({ options: ['red', 'green', 'blue'], multiple: true });
    const pollId = status.poll.id;
    const repeated = await bob.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [0, 0] });
    expect(repeated.status).toBe(422);
    const vote = await bob.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [2, 0] });
    expect(vote.status).toBe(200);
    expect(vote.body.multiple).toBe(true);
    expect(vote.body.own_votes).toEqual([0, 2]);
    expect(vote.body.votes_count).toBe(2);
    expect(vote.body.voters_count).toBe(1);
    const second = await carol.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [2] });
    expect(second.body.votes_count).toBe(3);
    expect(second.body.voters_count).toBe(2);
    expect(second.body.options.map((o: { votes_count: number }) => o.votes_count)).toEqual([1, 0, 2]);
  });

  it('hides totals until the end when asked', async () => {
    const status = await pollStatus({ options: ['x', 'y'], hide_totals: true, expires_in: 300 });
    const pollId = status.poll.id;
    const vote = await bob.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [0] });
    expect(vote.body.options).toEqual([{ title: 'x', votes_count: null }, { title: 'y', votes_count: null }]);
    setClockTo(Date.now() + 301_000);
    const ended = await bob.client.get(`/api/v1/polls/${pollId}`);
    expect(ended.body.expired).toBe(true);
    expect(ended.body.options).toEqual([{ title: 'x', votes_count: 1 }, { title: 'y', votes_count: 0 }]);
  });

  it('refuses votes once the poll has ended', async () => {
    const status = await pollStatus({ options: ['now', 'later'], expires_in: 300 });
    setClockTo(Date.now() + 300_001);
    const res = await bob.client.post(`/api/v1/polls/${status.poll.id}/votes`, { choices: [0] });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Validation failed: The poll has already ended');
    expect((await bob.client.get(`/api/v1/polls/${status.poll.id}`)).body.votes_count).toBe(0);
  });

  it('answers 404 for polls of statuses the caller may not see', async () => {
    const status = await pollStatus({ options: ['in', 'out'] }, { visibility: 'private' });
    const pollId = status.poll.id;
    expect((await inst.anon.get(`/api/v1/polls/${pollId}`)).status).toBe(404);
    expect((await carol.client.get(`/api/v1/polls/${pollId}`)).status).toBe(404);
    const hidden = await carol.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [0] });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: 'Record not found' });
    await follow(bob.client, alice.accountId);
    expect((await bob.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [0] })).status).toBe(200);
    expect((await inst.anon.get('/api/v1/polls/12345')).status).toBe(404);
    expect((await inst.anon.get('/api/v1/polls/nope')).status).toBe(404);
  });

  it('checks tokens and scopes', async () => {
    const status = await pollStatus({ options: ['p', 'q'] });
    const pollId = status.poll.id;
    expect((await inst.anon.post(`/api/v1/polls/${pollId}/votes`, { choices: [0] })).status).toBe(401);
    expect((await inst.anon.get(`/api/v1/polls/${pollId}`, { token: 'bogus' })).status).toBe(401);
    expect((await bob.client.get(`/api/v1/polls/${pollId}`, { token: inst.tokenFor(bob, 'write') })).status).toBe(403);
    expect((await bob.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [0] }, { token: inst.tokenFor(bob, 'read') })).status).toBe(403);
    expect((await bob.client.post(`/api/v1/polls/${pollId}/votes`, { choices: [0] }, { token: inst.tokenFor(bob, 'write:statuses') })).status).toBe(200);
  });

  it('validates poll parameters when posting (422, nothing written)', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ options: ['only one'], expires_in: 600 }, /more than one item/],
      [{ options: ['a', 'b', 'c', 'd', 'e'], expires_in: 600 }, /more than 4 items/],
      [{ options: ['a', 'a'], expires_in: 600 }, /duplicate/],
      [{ options: ['a', 'x'.repeat(51)], expires_in: 600 }, /longer than 50 characters/],
      [{ options: ['a', 'b'], expires_in: 60 }, /too soon/],
      [{ options: ['a', 'b'], expires_in: 99_999_999 }, /too far/],
      [{ options: ['a', 'b'] }, /blank/],
    ];
    const before = (await inst.anon.get(`/api/v1/accounts/${alice.accountId}`)).body.statuses_count;
    for (const [poll, message] of cases) {
      const res = await alice.client.post('/api/v1/statuses', { status: 'bad poll', poll });
      expect(res.status, JSON.stringify(poll)).toBe(422);
      expect(res.body.error).toMatch(/^Validation failed: /);
      expect(res.body.error).toMatch(message);
    }
    expect((await inst.anon.get(`/api/v1/accounts/${alice.accountId}`)).body.statuses_count).toBe(before);
    // Form bodies: poll[options][]=…&poll[expires_in]=…
    const form = await alice.client.post('/api/v1/statuses', undefined, {
      form: { status: 'form poll', 'poll[options][]': ['one', 'two'], 'poll[expires_in]': '600', 'poll[multiple]': 'true' },
    });
    expect(form.status, form.text).toBe(200);
    expect(form.body.poll.multiple).toBe(true);
    expect(form.body.poll.options.map((o: { title: string }) => o.title)).toEqual(['one', 'two']);
  });
});
