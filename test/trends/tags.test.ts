import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { DAY, post, seedOldStatus, seedRemoteAccount } from './helpers.js';

describe('trending hashtags', () => {
  const env = useInstance(['alice', 'bob', 'carol', 'dave']);

  it('answers [] while nothing trends, to anyone', async () => {
    const { inst, users } = env();
    expect((await inst.anon.get('/api/v1/trends/tags')).body).toEqual([]);
    // One account using a tag many times is not a trend.
    for (let i = 0; i < 3; i++) await post(users.alice.client, { status: `#lonely number ${i}` });
    const res = await users.alice.client.get('/api/v1/trends/tags');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.get('link')).toBeNull();
  });

  it('trends once two accounts use a tag, with seven days of history, today first', async () => {
    const { inst, users } = env();
    await post(users.bob.client, { status: 'Off we go #garden' });
    await post(users.bob.client, { status: 'More #garden' });
    expect((await inst.anon.get('/api/v1/trends/tags')).body.map((t: { name: string }) => t.name)).not.toContain('garden');
    await post(users.carol.client, { status: 'Me too #Garden' });

    const res = await inst.anon.get('/api/v1/trends/tags');
    expect(res.status).toBe(200);
    const garden = res.body.find((t: { name: string }) => t.name === 'garden');
    expect(garden).toBeDefined();
    expect(garden.url).toBe(`${inst.url}/tags/garden`);
    expect(garden.history).toHaveLength(7);
    const today = Math.floor(Date.now() / DAY);
    expect(garden.history.map((h: { day: string }) => h.day)).toEqual([0, 1, 2, 3, 4, 5, 6].map((d) => String(((today - d) * DAY) / 1000)));
    expect(garden.history[0]).toEqual({ day: String((today * DAY) / 1000), uses: '3', accounts: '2' });
    expect(garden.history.slice(1).every((h: { uses: string }) => h.uses === '0')).toBe(true);
    // Anonymous: no following/featuring.
    expect(garden).not.toHaveProperty('following');
  });

  it('counts only public statuses of accounts in good standing', async () => {
    const { inst, users } = env();
    await post(users.alice.client, { status: 'quiet #secretgarden', visibility: 'unlisted' });
    await post(users.bob.client, { status: 'hush #secretgarden', visibility: 'private' });
    const shouty = seedRemoteAccount(inst, 'shouty', 'remote.example');
    const other = seedRemoteAccount(inst, 'other', 'remote.example');
    seedOldStatus(inst, shouty, 0, { tags: ['silenced'] });
    seedOldStatus(inst, other, 0, { tags: ['silenced'] });
    expect((await inst.anon.get('/api/v1/trends/tags')).body.map((t: { name: string }) => t.name)).toContain('silenced');
    inst.deps.db.query('UPDATE accounts SET silenced_at = ? WHERE id = ?').run(Date.now(), shouty);
    const names = (await inst.anon.get('/api/v1/trends/tags')).body.map((t: { name: string }) => t.name);
    expect(names).not.toContain('secretgarden');
    expect(names).not.toContain('silenced');
  });

  it('ranks what more people use now before what was busy days ago, and pages with offset', async () => {
    const { inst, users } = env();
    const remote = ['r1', 'r2', 'r3', 'r4'].map((n) => seedRemoteAccount(inst, n, 'far.example'));
    // Four accounts five days ago: more people, but long ago.
    for (const id of remote) seedOldStatus(inst, id, 5, { tags: ['yesterdaysnews'] });
    for (const client of [users.alice.client, users.bob.client, users.carol.client]) await post(client, { status: 'Now #hotnow' });
    const names = (await inst.anon.get('/api/v1/trends/tags')).body.map((t: { name: string }) => t.name);
    expect(names.indexOf('hotnow')).toBeGreaterThanOrEqual(0);
    expect(names.indexOf('hotnow')).toBeLessThan(names.indexOf('yesterdaysnews'));
    const old = (await inst.anon.get('/api/v1/trends/tags')).body.find((t: { name: string }) => t.name === 'yesterdaysnews');
    expect(old.history[5]).toMatchObject({ uses: '4', accounts: '4' });

    const first = await inst.anon.get('/api/v1/trends/tags?limit=1');
    expect(first.body).toHaveLength(1);
    expect(first.body[0].name).toBe(names[0]);
    expect(first.headers.get('link')).toContain('offset=1');
    expect(first.headers.get('link')).toContain('rel="next"');
    const second = await inst.anon.get('/api/v1/trends/tags?limit=1&offset=1');
    expect(second.body[0].name).toBe(names[1]);
    expect(second.headers.get('link')).toContain('rel="prev"');
    // The name of the method before Mastodon 3.5 answers the same.
    expect((await inst.anon.get('/api/v1/trends')).body.map((t: { name: string }) => t.name)).toEqual(names);
  });

  it('says whether a signed-in viewer follows and features each tag', async () => {
    const { users } = env();
    expect((await users.dave.client.post('/api/v1/tags/hotnow/follow')).status).toBe(200);
    const tags = (await users.dave.client.get('/api/v1/trends/tags')).body;
    expect(tags.find((t: { name: string }) => t.name === 'hotnow')).toMatchObject({ following: true, featuring: false });
    expect(tags.find((t: { name: string }) => t.name === 'garden')).toMatchObject({ following: false });
  });

  it('caps the limit as Mastodon does and reads a bad one as Ruby reads it (0)', async () => {
    const { inst } = env();
    const many = Array.from({ length: 22 }, (_, i) => `many${i}`);
    const a = seedRemoteAccount(inst, 'tagger1', 'tags.example');
    const b = seedRemoteAccount(inst, 'tagger2', 'tags.example');
    for (const id of [a, b]) seedOldStatus(inst, id, 0, { tags: many });
    expect((await inst.anon.get('/api/v1/trends/tags')).body).toHaveLength(10);
    expect((await inst.anon.get('/api/v1/trends/tags?limit=100')).body).toHaveLength(20);
    const bad = await inst.anon.get('/api/v1/trends/tags?limit=lots');
    expect(bad.status).toBe(200);
    expect(bad.body).toEqual([]);
    expect((await inst.anon.get('/api/v1/trends/tags?offset=-1')).status).toBe(422);
    expect((await inst.anon.get('/api/v1/trends/tags', { token: 'not-a-token' })).status).toBe(401);
  });
});
