import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archetypeOf } from '../../api/core/annual-reports/reports.js';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { postStatus as post, useInstance } from '../helpers/fixtures.js';

const YEAR = new Date().getUTCFullYear();
/** Inside the campaign: 15 December of this year. */
const CAMPAIGN = Date.UTC(YEAR, 11, 15, 12);

describe('annual reports ("Wrapstodon")', () => {
  beforeAll(() => setClockTo(CAMPAIGN));
  afterAll(() => resetClock());
  const env = useInstance(['alice', 'bob', 'carol', 'dave']);

  it('has nothing to offer someone who posted nothing this year', async () => {
    const { users } = env();
    const c = users.alice.client;
    expect((await c.get(`/api/v1/annual_reports/${YEAR}/state`)).body).toEqual({ state: 'ineligible' });
    expect((await c.post(`/api/v1/annual_reports/${YEAR}/generate`)).status).toBe(200);
    expect((await c.get(`/api/v1/annual_reports/${YEAR}`)).status).toBe(404);
    expect((await c.get('/api/v1/annual_reports')).body).toEqual({ annual_reports: [], accounts: [], statuses: [] });
  });

  it("sums up the year from the instance's records: archetype, statuses, followers, top hashtag and most boosted status", async () => {
    const { users } = env();
    const alice = users.alice.client;
    const top = await post(alice, { status: 'My best #garden post of the year' });
    await post(alice, { status: 'More #garden' });
    await post(alice, { status: 'A #once post', visibility: 'unlisted' });
    const bobs = await post(users.bob.client, { status: 'Bob speaks' });
    await post(alice, { status: '@bob I agree', in_reply_to_id: bobs.id });
    await post(alice, { status: 'Which?', poll: { options: ['a', 'b'], expires_in: 3600 } });
    expect((await alice.post(`/api/v1/statuses/${bobs.id}/reblog`)).status).toBe(200);
    expect((await users.bob.client.post(`/api/v1/statuses/${top.id}/reblog`)).status).toBe(200);
    expect((await users.dave.client.post(`/api/v1/accounts/${users.alice.accountId}/follow`)).status).toBe(200);
    expect((await alice.get(`/api/v1/annual_reports/${YEAR}/state`)).body).toEqual({ state: 'eligible' });

    const generated = await alice.post(`/api/v1/annual_reports/${YEAR}/generate`);
    expect(generated.status).toBe(200);
    expect((await alice.get(`/api/v1/annual_reports/${YEAR}/state`)).body).toEqual({ state: 'available' });

    const res = await alice.get(`/api/v1/annual_reports/${YEAR}`);
    expect(res.status).toBe(200);
    expect(res.body.annual_reports).toEqual([
      {
        year: YEAR,
        schema_version: 2,
        share_url: null,
        account_id: users.alice.accountId,
        data: {
          // Seven posts are far below the yearly average of an active user.
          archetype: 'lurker',
          time_series: [{ month: 12, statuses: 6, followers: 1 }],
          top_hashtags: [{ name: 'garden', count: 2 }],
          top_statuses: { by_reblogs: top.id, by_favourites: null, by_replies: null },
        },
      },
    ]);
    expect(res.body.statuses.map((s: { id: string }) => s.id)).toEqual([top.id]);
    expect(res.body.accounts).toEqual([]);
  });

  it('keeps a report as it was made, lists it until it is read', async () => {
    const { users } = env();
    const alice = users.alice.client;
    const before = (await alice.get(`/api/v1/annual_reports/${YEAR}`)).body.annual_reports;
    await post(alice, { status: 'One more #garden post' });
    expect((await alice.post(`/api/v1/annual_reports/${YEAR}/generate`)).status).toBe(200);
    expect((await alice.get(`/api/v1/annual_reports/${YEAR}`)).body.annual_reports).toEqual(before);

    expect((await alice.get('/api/v1/annual_reports')).body.annual_reports.map((r: { year: number }) => r.year)).toEqual([YEAR]);
    expect((await alice.post(`/api/v1/annual_reports/${YEAR}/read`)).status).toBe(200);
    expect((await alice.get('/api/v1/annual_reports')).body.annual_reports).toEqual([]);
    expect((await alice.get(`/api/v1/annual_reports/${YEAR}`)).status).toBe(200);
  });

  it('is offered only during the campaign, and only with a public post and a hashtag', async () => {
    const { users } = env();
    const carol = users.carol.client;
    await post(carol, { status: 'Just between friends #garden', visibility: 'private' });
    expect((await carol.get(`/api/v1/annual_reports/${YEAR}/state`)).body).toEqual({ state: 'ineligible' });
    await post(carol, { status: 'Out loud, no tag' });
    expect((await carol.get(`/api/v1/annual_reports/${YEAR}/state`)).body).toEqual({ state: 'eligible' });
    setClockTo(Date.UTC(YEAR, 6, 1));
    try {
      expect((await carol.get(`/api/v1/annual_reports/${YEAR}/state`)).body).toEqual({ state: 'ineligible' });
      expect((await carol.post(`/api/v1/annual_reports/${YEAR}/generate`)).status).toBe(200);
      expect((await carol.get(`/api/v1/annual_reports/${YEAR}`)).status).toBe(404);
    } finally {
      setClockTo(CAMPAIGN);
    }
    expect((await carol.get(`/api/v1/annual_reports/${YEAR - 1}/state`)).body).toEqual({ state: 'ineligible' });
  });

  it('answers 404 for a report that was not made or a year that is not one', async () => {
    const { users } = env();
    const bob = users.bob.client;
    for (const path of [`/api/v1/annual_reports/${YEAR - 3}`, '/api/v1/annual_reports/abc']) expect((await bob.get(path)).status, path).toBe(404);
    expect((await bob.post(`/api/v1/annual_reports/${YEAR - 3}/read`)).status).toBe(404);
    expect((await bob.get('/api/v1/annual_reports/abc/state')).body).toEqual({ state: 'ineligible' });
  });

  it('needs a user token with the accounts scopes', async () => {
    const { inst, users } = env();
    expect((await inst.anon.get('/api/v1/annual_reports')).status).toBe(401);
    expect((await inst.anon.get('/api/v1/annual_reports', { token: inst.tokenFor(users.alice, 'read:statuses') })).status).toBe(403);
    expect((await inst.anon.get('/api/v1/annual_reports', { token: inst.tokenFor(users.alice, 'read:accounts') })).status).toBe(200);
    expect((await inst.anon.post(`/api/v1/annual_reports/${YEAR}/generate`, undefined, { token: inst.tokenFor(users.alice, 'read') })).status).toBe(403);
    expect((await inst.anon.post(`/api/v1/annual_reports/${YEAR}/read`, undefined, { token: inst.tokenFor(users.alice, 'write:accounts') })).status).toBe(200);
  });
});

describe('the archetype, by Mastodon\'s rules', () => {
  const counts = { total: 0, reblogs: 0, replies: 0, standalone: 0, polls: 0, distributable: 0, tagged: 0 };
  it('tells lurkers, boosters, pollsters, repliers and oracles apart', () => {
    expect(archetypeOf({ ...counts, standalone: 50, replies: 10, reblogs: 10 })).toBe('lurker');
    expect(archetypeOf({ ...counts, standalone: 40, reblogs: 100 })).toBe('booster');
    expect(archetypeOf({ ...counts, standalone: 100, polls: 20, reblogs: 20 })).toBe('pollster');
    expect(archetypeOf({ ...counts, standalone: 40, replies: 100 })).toBe('replier');
    expect(archetypeOf({ ...counts, standalone: 120, replies: 10, polls: 1 })).toBe('oracle');
  });
});
