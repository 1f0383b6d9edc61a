import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../api/core/oauth/tokens.js';
import { newId } from '../../api/util/ids.js';
import { TestClient } from '../helpers/client.js';
import { seedRemoteAccount } from '../helpers/fixtures.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { DAY, post, seedOldStatus } from '../trends/helpers.js';

const today = () => Math.floor(Date.now() / DAY);
const date = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);
const midnight = (day: number) => new Date(day * DAY).toISOString();

/** The admin dashboard: measures, dimensions and retention cohorts, from the instance's own data. */
describe('admin measures, dimensions and retention', () => {
  let inst: TestInstance;
  const u = {} as Record<'owner' | 'admin' | 'mod' | 'alice' | 'bob', TestUser>;
  let remoteId: string;
  let knitId: string;
  const SCOPES = 'read write admin:read admin:write';

  beforeAll(async () => {
    inst = await startInstance();
    u.owner = await inst.createUser('owner', { role: 'owner', scopes: SCOPES });
    u.admin = await inst.createUser('admin', { role: 'admin', scopes: SCOPES });
    u.mod = await inst.createUser('mod', { role: 'moderator', scopes: SCOPES });
    u.alice = await inst.createUser('alice', { scopes: SCOPES });
    u.bob = await inst.createUser('bob', { scopes: SCOPES });
    const db = inst.deps.db;
    // One user who signed up ten days ago: in the period before this week's.
    db.query('UPDATE users SET created_at = ? WHERE id = ?').run((today() - 10) * DAY + 1000, u.owner.userId);

    // Interactions with alice's status: a favourite, a boost and a reply.
    const status = await post(u.alice.client, { status: 'Knitting tonight #knit', language: 'en' });
    await u.bob.client.post(`/api/v1/statuses/${status.id}/favourite`);
    await u.bob.client.post(`/api/v1/statuses/${status.id}/reblog`);
    await post(u.bob.client, { status: 'lovely #knit', in_reply_to_id: status.id, language: 'de' });
    // A report, and one resolved.
    expect((await u.bob.client.post('/api/v1/reports', { account_id: u.alice.accountId })).status).toBe(200);
    expect((await u.alice.client.post('/api/v1/reports', { account_id: u.bob.accountId })).status).toBe(200);
    db.query('UPDATE reports SET action_taken_at = ? WHERE account_id = ?').run(Date.now(), u.alice.accountId);

    // A remote server with two accounts, a status using the tag, follows both ways, media and a report.
    remoteId = seedRemoteAccount(inst, 'far', 'remote.example');
    const other = seedRemoteAccount(inst, 'other', 'sub.remote.example');
    seedOldStatus(inst, remoteId, 0, { tags: ['knit'] });
    seedOldStatus(inst, other, 0);
    db.query('UPDATE statuses SET language = ? WHERE account_id = ?').run('fr', remoteId);
    const at = Date.now();
    db.query('INSERT INTO follows (id, account_id, target_account_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(newId(), u.alice.accountId, remoteId, at, at);
    db.query('INSERT INTO follows (id, account_id, target_account_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(newId(), other, u.bob.accountId, at, at);
    db.query("INSERT INTO media_attachments (id, account_id, type, file_size, created_at, updated_at) VALUES (?, ?, 'image', 2048, ?, ?)").run(newId(), remoteId, at, at);
    db.query('INSERT INTO reports (id, account_id, target_account_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(newId(), u.bob.accountId, remoteId, at, at);
    knitId = String(db.query<{ id: string }>("SELECT id FROM tags WHERE name_normalized = 'knit'").get()?.id);

    // A status posted through an app (the `sources` dimension).
    const app = await inst.anon.post('/api/v1/apps', { client_name: 'Knitting Client', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write' });
    const token = issueToken(inst.deps, { applicationId: app.body.id, userId: u.alice.userId, scopes: ['read', 'write'] }).accessToken;
    await post(new TestClient(inst.url, token), { status: 'from my app', language: 'de' });
  });
  afterAll(async () => {
    await inst.close();
  });

  const week = () => ({ start_at: date(today() - 6), end_at: `${date(today())}T18:30:00Z` });

  async function measure(client: TestClient, body: Record<string, unknown>) {
    const res = await client.post('/api/v1/admin/measures', body);
    expect(res.status, res.text).toBe(200);
    return new Map<string, any>(res.body.map((m: { key: string }) => [m.key, m]));
  }

  it('counts users, activity, interactions and reports per day, with the previous period', async () => {
    const m = await measure(u.mod.client, { keys: ['new_users', 'active_users', 'interactions', 'opened_reports', 'resolved_reports'], ...week() });
    const newUsers = m.get('new_users');
    expect(newUsers).toMatchObject({ key: 'new_users', unit: null, total: '4', previous_total: '1' });
    expect(newUsers.data).toHaveLength(7);
    expect(newUsers.data[0]).toEqual({ date: midnight(today() - 6), value: '0' });
    expect(newUsers.data[6]).toEqual({ date: midnight(today()), value: '4' });
    // alice, bob and the moderator made requests today (the owner and the admin did not yet).
    expect(m.get('active_users')).toMatchObject({ total: '3', previous_total: '0' });
    expect(m.get('active_users').data[6].value).toBe('3');
    expect(m.get('interactions')).toMatchObject({ total: '3', previous_total: '0' });
    expect(m.get('opened_reports').total).toBe('3');
    expect(m.get('resolved_reports').total).toBe('1');
    // The order asked for is kept; unknown keys are left out.
    const ordered = await u.mod.client.post('/api/v1/admin/measures', { keys: ['opened_reports', 'nonsense', 'new_users'], ...week() });
    expect(ordered.body.map((x: { key: string }) => x.key)).toEqual(['opened_reports', 'new_users']);
  });

  it('measures a tag and a remote server', async () => {
    const m = await measure(u.admin.client, {
      keys: ['tag_accounts', 'tag_uses', 'tag_servers', 'instance_accounts', 'instance_media_attachments', 'instance_reports', 'instance_statuses', 'instance_follows', 'instance_followers'],
      ...week(),
      tag_accounts: { id: knitId },
      tag_uses: { id: knitId },
      tag_servers: { id: knitId },
      instance_accounts: { domain: 'remote.example' },
      instance_media_attachments: { domain: 'Remote.Example' },
      instance_reports: { domain: 'remote.example' },
      instance_statuses: { domain: 'remote.example' },
      instance_follows: { domain: 'remote.example' },
      instance_followers: { domain: 'remote.example' },
    });
    expect(m.get('tag_uses')).toMatchObject({ total: '3', previous_total: '0' });
    expect(m.get('tag_accounts').total).toBe('3');
    expect(m.get('tag_servers').total).toBe('1');
    // Subdomains count with their server; instance totals are of all time, without previous_total.
    expect(m.get('instance_accounts')).toEqual(expect.objectContaining({ total: '2', unit: null }));
    expect(m.get('instance_accounts')).not.toHaveProperty('previous_total');
    expect(m.get('instance_statuses').total).toBe('2');
    expect(m.get('instance_media_attachments')).toMatchObject({ unit: 'bytes', total: '2048', human_value: '2 KB' });
    expect(m.get('instance_media_attachments').data[6].value).toBe('2048');
    expect(m.get('instance_reports').total).toBe('1');
    expect(m.get('instance_follows').total).toBe('1');
    expect(m.get('instance_followers').total).toBe('1');
  });

  it('refuses bad input with Mastodon-style errors', async () => {
    const c = u.admin.client;
    expect((await c.post('/api/v1/admin/measures', { keys: ['new_users'], end_at: date(today()) })).status).toBe(400);
    expect((await c.post('/api/v1/admin/measures', { keys: ['new_users'], start_at: 'soon', end_at: date(today()) })).body).toEqual({
      error: 'param is missing or the value is empty: start_at',
    });
    expect((await c.post('/api/v1/admin/measures', { keys: ['new_users'], start_at: date(today()), end_at: date(today() - 1) })).status).toBe(422);
    expect((await c.post('/api/v1/admin/measures', { keys: ['new_users'], start_at: '2000-01-01', end_at: date(today()) })).status).toBe(422);
    expect((await c.post('/api/v1/admin/measures', { keys: ['tag_uses'], ...week() })).body).toEqual({ error: 'param is missing or the value is empty: tag_uses[id]' });
    expect((await c.post('/api/v1/admin/measures', { keys: ['tag_uses'], ...week(), tag_uses: { id: '12345' } })).status).toBe(404);
    expect((await c.post('/api/v1/admin/measures', { keys: ['instance_statuses'], ...week() })).status).toBe(400);
    expect((await c.post('/api/v1/admin/dimensions', { keys: ['tag_servers'] })).status).toBe(400);
    expect((await c.post('/api/v1/admin/measures', { keys: 'nothing', ...week() })).body).toEqual([]);
    // Form bodies, with `keys[]` and nested parameters, work as JSON does.
    const form = await c.post('/api/v1/admin/measures', undefined, {
      form: { 'keys[]': ['tag_uses', 'new_users'], start_at: week().start_at, end_at: week().end_at, 'tag_uses[id]': knitId },
    });
    expect(form.body.map((x: { key: string; total: string }) => [x.key, x.total])).toEqual([['tag_uses', '3'], ['new_users', '4']]);
  });

  it('groups statuses by language, app, server, tag and remote server; tells space and versions', async () => {
    const res = await u.mod.client.post('/api/v1/admin/dimensions', {
      keys: ['languages', 'sources', 'servers', 'space_usage', 'software_versions', 'tag_servers', 'tag_languages', 'instance_accounts', 'instance_languages'],
      ...week(),
      tag_servers: { id: knitId },
      tag_languages: { id: knitId },
      instance_accounts: { domain: 'remote.example' },
      instance_languages: { domain: 'remote.example' },
    });
    expect(res.status, res.text).toBe(200);
    const d = new Map<string, any>(res.body.map((x: { key: string; data: unknown }) => [x.key, x.data]));
    expect(d.get('languages')).toEqual(expect.arrayContaining([{ key: 'de', human_key: 'German', value: '2' }, { key: 'en', human_key: 'English', value: '1' }]));
    expect(d.get('sources')).toEqual([{ key: 'Knitting Client', human_key: 'Knitting Client', value: '1' }]);
    expect(d.get('servers')).toEqual([
      { key: 'remote.example', human_key: 'remote.example', value: '1' },
      { key: 'sub.remote.example', human_key: 'sub.remote.example', value: '1' },
    ]);
    const space = d.get('space_usage');
    expect(space.map((s: { key: string }) => s.key)).toEqual(['sqlite', 'media']);
    expect(Number(space[0].value)).toBeGreaterThan(0);
    expect(space[0]).toMatchObject({ human_key: 'SQLite', unit: 'bytes' });
    expect(space[0].human_value).toMatch(/^[\d.]+ (KB|MB)$/);
    const versions = d.get('software_versions');
    expect(versions.find((v: { key: string }) => v.key === 'nodejs')).toEqual({ key: 'nodejs', human_key: 'Node.js', value: process.versions.node, human_value: process.versions.node });
    expect(versions.map((v: { key: string }) => v.key)).toEqual(['hearth', 'nodejs', 'sqlite']);
    const host = new URL(inst.url).host;
    expect(d.get('tag_servers')).toEqual([
      { key: host, human_key: host, value: '2' },
      { key: 'remote.example', human_key: 'remote.example', value: '1' },
    ]);
    expect(d.get('tag_languages')).toEqual(expect.arrayContaining([{ key: 'fr', human_key: 'French', value: '1' }]));
    expect(d.get('instance_accounts')).toEqual([{ key: 'far', human_key: 'far', value: '1' }]);
    expect(d.get('instance_languages')).toEqual(expect.arrayContaining([{ key: 'fr', human_key: 'French', value: '1' }, { key: 'und', human_key: 'und', value: '1' }]));

    // `limit` cuts each list; without dates the last 30 days count.
    const limited = await u.mod.client.post('/api/v1/admin/dimensions', { keys: ['servers'], limit: 1 });
    expect(limited.body).toEqual([{ key: 'servers', data: [{ key: 'remote.example', human_key: 'remote.example', value: '1' }] }]);
  });

  it('makes retention cohorts by day and by month', async () => {
    const db = inst.deps.db;
    const d0 = today() - 40;
    const made: string[] = [];
    for (const name of ['c1', 'c2', 'c3']) made.push((await inst.createUser(name)).userId);
    const [c1, c2, c3] = made;
    db.query('UPDATE users SET created_at = ? WHERE id IN (?, ?)').run(d0 * DAY + 3600_000, c1 ?? '', c2 ?? '');
    db.query('UPDATE users SET created_at = ? WHERE id = ?').run((d0 + 1) * DAY + 3600_000, c3 ?? '');
    for (const day of [d0, d0 + 1, d0 + 2]) db.query('INSERT INTO user_activity_days (day, user_id) VALUES (?, ?)').run(day, c1 ?? '');
    db.query('INSERT INTO user_activity_days (day, user_id) VALUES (?, ?)').run(d0, c2 ?? '');

    const res = await u.mod.client.post('/api/v1/admin/retention', { start_at: date(d0), end_at: date(d0 + 2), frequency: 'day' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual([
      {
        period: midnight(d0),
        frequency: 'day',
        data: [
          { date: midnight(d0), rate: 1, value: '2' },
          { date: midnight(d0 + 1), rate: 0.5, value: '1' },
          { date: midnight(d0 + 2), rate: 0.5, value: '1' },
        ],
      },
      { period: midnight(d0 + 1), frequency: 'day', data: [{ date: midnight(d0 + 1), rate: 1, value: '1' }, { date: midnight(d0 + 2), rate: 0, value: '0' }] },
      { period: midnight(d0 + 2), frequency: 'day', data: [{ date: midnight(d0 + 2), rate: 0, value: '0' }] },
    ]);
    // Any other frequency is `day`; missing dates answer [].
    expect((await u.mod.client.post('/api/v1/admin/retention', { start_at: date(d0), end_at: date(d0), frequency: 'week' })).body[0].frequency).toBe('day');
    expect((await u.mod.client.post('/api/v1/admin/retention', { frequency: 'day' })).body).toEqual([]);

    const month = new Date(d0 * DAY);
    const monthStart = Date.UTC(month.getUTCFullYear(), month.getUTCMonth(), 1);
    const monthly = await u.mod.client.post('/api/v1/admin/retention', { start_at: date(d0), end_at: date(d0), frequency: 'month' });
    const members = db.query<{ n: number }>('SELECT count(*) AS n FROM users WHERE created_at >= ? AND created_at < ?').get(monthStart, Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1))?.n;
    expect(monthly.body).toEqual([{ period: new Date(monthStart).toISOString(), frequency: 'month', data: [{ date: new Date(monthStart).toISOString(), rate: 1, value: String(members) }] }]);
  });

  it('needs View Dashboard and admin:read', async () => {
    for (const path of ['measures', 'dimensions', 'retention']) {
      const body = { keys: ['new_users', 'languages'], ...week(), frequency: 'day' };
      for (const staff of [u.owner, u.admin, u.mod]) expect((await staff.client.post(`/api/v1/admin/${path}`, body)).status).toBe(200);
      const refused = await u.alice.client.post(`/api/v1/admin/${path}`, body);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ error: 'This action is not allowed' });
      expect((await inst.anon.post(`/api/v1/admin/${path}`, body)).status).toBe(403);
      expect((await u.admin.client.post(`/api/v1/admin/${path}`, body, { token: inst.tokenFor(u.admin, 'read write admin:write') })).status).toBe(403);
    }
  });

  it('is driven by the masto client', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: u.admin.token });
    const [measureNew] = await masto.v1.admin.measures.create({ keys: ['new_users'], startAt: week().start_at, endAt: week().end_at });
    expect(measureNew).toMatchObject({ key: 'new_users', total: '4', previousTotal: '1' });
    const [tagServers] = await masto.v1.admin.dimensions.create({ keys: ['tag_servers'], tagServers: { id: knitId } });
    expect(tagServers?.data.map((x) => x.key)).toContain('remote.example');
    const cohorts = await masto.v1.admin.retention.create({ startAt: date(today()), endAt: date(today()), frequency: 'day' });
    expect(cohorts).toHaveLength(1);
    expect(cohorts[0]?.data[0]?.rate).toBe(1);
  });
});
