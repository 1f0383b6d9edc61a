import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOfWeek } from '../../api/core/instance/stats.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { insertRemoteAccount, insertStatusRow } from './fixtures.js';

const HOUR = 60 * 60 * 1000;
const WEEK = 7 * 24 * HOUR;

describe('GET /api/v1/instance/activity', () => {
  let inst: TestInstance;
  let kim: TestUser;
  let thisWeek: number;
  beforeAll(async () => {
    inst = await startInstance();
    kim = await inst.createUser('kim', { role: 'owner' });
    await inst.createUser('sam');
    thisWeek = startOfWeek(Date.now());
    const db = inst.deps.db;
    // This week: 2 public, 1 unlisted, plus private and direct ones that must not count.
    for (const visibility of ['public', 'public', 'unlisted', 'private', 'direct', 'direct'] as const) {
      insertStatusRow(db, { accountId: kim.accountId, visibility, createdAt: thisWeek + HOUR });
    }
    // Two weeks ago: 1 public, 1 private.
    insertStatusRow(db, { accountId: kim.accountId, visibility: 'public', createdAt: thisWeek - 2 * WEEK + HOUR });
    insertStatusRow(db, { accountId: kim.accountId, visibility: 'private', createdAt: thisWeek - 2 * WEEK + 2 * HOUR });
    // Remote statuses are not this instance's activity.
    const remote = insertRemoteAccount(db, 'ana', 'remote.example');
    insertStatusRow(db, { accountId: remote, visibility: 'public', createdAt: thisWeek + HOUR, local: false });
    // Thirteen weeks ago: outside the window.
    insertStatusRow(db, { accountId: kim.accountId, visibility: 'public', createdAt: thisWeek - 12 * WEEK + HOUR });
    // A user who signed up and last signed in five weeks ago.
    const old = await inst.createUser('old');
    db.query('UPDATE users SET created_at = @at, last_sign_in_at = @at WHERE id = @id').run({ at: thisWeek - 5 * WEEK + HOUR, id: old.userId });
    db.query('UPDATE oauth_tokens SET created_at = @at WHERE user_id = @user_id').run({ at: thisWeek - 5 * WEEK + HOUR, user_id: old.userId });
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('answers twelve weekly buckets, newest first, every number a string', async () => {
    const res = await inst.anon.get('/api/v1/instance/activity');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(12);
    for (const [i, week] of (res.body as Record<string, unknown>[]).entries()) {
      expect(Object.keys(week).sort()).toEqual(['logins', 'registrations', 'statuses', 'week']);
      for (const value of Object.values(week)) expect(value).toMatch(/^\d+$/);
      expect(Number(week.week) * 1000).toBe(thisWeek - i * WEEK);
      // Weeks start on Monday, midnight UTC.
      expect(new Date(Number(week.week) * 1000).getUTCDay()).toBe(1);
      expect(new Date(Number(week.week) * 1000).getUTCHours()).toBe(0);
    }
  });

  it('counts public and unlisted local statuses, logins and registrations per week', async () => {
    const weeks = (await inst.anon.get('/api/v1/instance/activity')).body as Record<string, string>[];
    expect(weeks[0]).toMatchObject({ statuses: '3', logins: '2', registrations: '2' });
    expect(weeks[1]).toMatchObject({ statuses: '0', logins: '0', registrations: '0' });
    expect(weeks[2]).toMatchObject({ statuses: '1' });
    expect(weeks[5]).toMatchObject({ statuses: '0', logins: '1', registrations: '1' });
    const total = weeks.reduce((n, w) => n + Number(w.statuses), 0);
    expect(total).toBe(4);
  });
});

describe('GET /api/v1/instance/peers', () => {
  let inst: TestInstance;
  beforeAll(async () => {
    inst = await startInstance();
    const db = inst.deps.db;
    insertRemoteAccount(db, 'ana', 'zeta.example');
    insertRemoteAccount(db, 'bob', 'zeta.example');
    insertRemoteAccount(db, 'cy', 'alpha.example');
    // Stored as punycode by some path: still served in Unicode, and only once.
    insertRemoteAccount(db, 'dee', 'xn--bcher-kva.example');
    insertRemoteAccount(db, 'eve', 'bücher.example');
    insertRemoteAccount(db, 'fay', 'xn--bcher-kva.example:8443');
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('lists each known remote domain once, in Unicode, sorted', async () => {
    const res = await inst.anon.get('/api/v1/instance/peers');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(['alpha.example', 'bücher.example', 'bücher.example:8443', 'zeta.example']);
    expect((await inst.anon.get('/api/v1/instance')).body.stats.domain_count).toBe(4);
  });
});

describe('peers and activity switched off', () => {
  let inst: TestInstance;
  beforeAll(async () => {
    inst = await startInstance({ peersApi: false, activityApi: false });
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('answers a bare 404, as Mastodon does for a disabled API', async () => {
    for (const path of ['/api/v1/instance/peers', '/api/v1/instance/activity']) {
      const res = await inst.anon.get(path);
      expect(res.status).toBe(404);
      expect(res.text).toBe('');
    }
  });

  it('still checks a given token first', async () => {
    expect((await inst.anon.get('/api/v1/instance/peers', { token: 'bogus' })).status).toBe(401);
  });
});
