import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../api/config.js';
import { Throttle } from '../../api/http/middleware/rate-limit.js';
import { RULES } from '../../api/http/middleware/rate-limits.js';
import { now, resetClock, setClockTo } from '../../api/util/clock.js';
import type { TestResponse } from '../helpers/client.js';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import { registerApp } from '../oauth/flow.js';

/**
 * Mastodon's rate limits, scaled down by the owner's setting (0.01: 3 API requests per 5 minutes
 * per token or address, 1 upload, 3 posts per 3 hours, 4 follows a day, 1 sign-up, 1 sign-in
 * attempt…) so that each can be used up. Requests name their client in X-Forwarded-For, as a proxy
 * on this machine (or the relay's edge) does; requests from apps on this machine are not limited.
 */
const SCALE = 0.01;

const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });

function limitHeaders(res: TestResponse) {
  return {
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
  };
}

/** Checks a reset time: Mastodon's format, at the end of the current window of `periodMs`. */
function expectReset(reset: string | null, periodMs: number): void {
  expect(reset).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  const at = Date.parse(reset ?? '');
  expect(at % periodMs).toBe(0);
  expect(at).toBeGreaterThan(now());
  expect(at).toBeLessThanOrEqual(now() + periodMs);
}

function expectRefused(res: TestResponse, limit: number, periodMs: number): void {
  expect(res.status, res.text).toBe(429);
  expect(res.body).toEqual({ error: 'Too many requests' });
  const h = limitHeaders(res);
  expect(h.limit).toBe(String(limit));
  expect(h.remaining).toBe('0');
  expectReset(h.reset, periodMs);
}

/** A GET with a Host header of our choosing (fetch will not send one). */
function getWithHost(url: string, path: string, host: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: target.hostname, port: target.port, path, headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

const FIVE_MINUTES = 5 * 60_000;

describe('rate limits as Mastodon applies them', () => {
  const env = useInstance(['alice', 'poster', 'follower', 'pager', 'deleter', 'uploader'], { rateLimitScale: SCALE, allowedHosts: 'kim.example' });
  afterEach(() => resetClock());

  it('counts API requests per token: the headers count down, then 429 with the same headers; another token is counted apart', async () => {
    const { inst, users: { alice } } = env();
    const token = inst.tokenFor(alice, 'read');
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await inst.anon.get('/api/v1/accounts/verify_credentials', { token, ...from('198.51.100.1') });
      expect(res.status).toBe(200);
      expect(limitHeaders(res).limit).toBe('3');
      expectReset(limitHeaders(res).reset, FIVE_MINUTES);
      remaining.push(limitHeaders(res).remaining);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    expectRefused(await inst.anon.get('/api/v1/accounts/verify_credentials', { token, ...from('198.51.100.1'), skipSchema: true }), 3, FIVE_MINUTES);
    // The same token from another address is the same token.
    expectRefused(await inst.anon.get('/api/v1/instance', { token, ...from('198.51.100.99'), skipSchema: true }), 3, FIVE_MINUTES);
    const other = await inst.anon.get('/api/v1/accounts/verify_credentials', { token: inst.tokenFor(alice, 'read'), ...from('198.51.100.1') });
    expect(other.status).toBe(200);
    expect(limitHeaders(other).remaining).toBe('2');
  });

  it('counts requests without a user per address, IPv6 addresses by their /64', async () => {
    const { inst } = env();
    for (let i = 0; i < 3; i++) expect((await inst.anon.get('/api/v1/instance', from('198.51.100.10'))).status).toBe(200);
    expectRefused(await inst.anon.get('/api/v1/instance', { ...from('198.51.100.10'), skipSchema: true }), 3, FIVE_MINUTES);
    expect((await inst.anon.get('/api/v1/instance', from('198.51.100.11'))).status).toBe(200);
    // The nearest address the proxy names counts, not what the client claimed before it.
    expect((await inst.anon.get('/api/v1/instance', from('198.51.100.10, 198.51.100.12'))).status).toBe(200);

    for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '[2001:db8:1:2:ffff::9]:443']) {
      expect((await inst.anon.get('/api/v1/instance', from(address))).status, address).toBe(200);
    }
    expectRefused(await inst.anon.get('/api/v1/instance', { ...from('2001:db8:1:2:abcd::1'), skipSchema: true }), 3, FIVE_MINUTES);
    expect((await inst.anon.get('/api/v1/instance', from('2001:db8:1:3::1'))).status).toBe(200);
  });

  it('leaves apps on this machine alone: no limit and no headers', async () => {
    const { inst, users: { alice } } = env();
    for (let i = 0; i < 8; i++) {
      const res = await alice.client.get('/api/v1/accounts/verify_credentials');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
    // A proxy on this machine that speaks only for this machine.
    for (let i = 0; i < 4; i++) expect((await inst.anon.get('/api/v1/instance', from('127.0.0.1'))).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await getWithHost(inst.url, '/api/v1/instance', 'hearth.localhost')).status).toBe(200);
  });

  it('counts a request that names another host without saying for whom (carried by the relay) under the loopback address', async () => {
    const { inst } = env();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await getWithHost(inst.url, '/api/v1/instance', 'kim.example'));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers[2]?.headers['x-ratelimit-remaining']).toBe('0');
    expect(answers[3]?.headers['x-ratelimit-limit']).toBe('3');
    expect((await inst.anon.get('/api/v1/instance')).status).toBe(200);
  });

  it('limits media uploads per user (30 per 30 minutes), counting every attempt', async () => {
    const { inst, users: { uploader } } = env();
    const first = await inst.anon.post('/api/v2/media', undefined, { token: uploader.token, ...from('198.51.100.20'), skipSchema: true });
    expect(first.status).toBe(422);
    expect(limitHeaders(first)).toMatchObject({ limit: '1', remaining: '0' });
    const second = await inst.anon.post('/api/v1/media', undefined, { token: inst.tokenFor(uploader, 'write'), ...from('198.51.100.21'), skipSchema: true });
    expectRefused(second, 1, 30 * 60_000);
  });

  it('limits posting per account (300 per 3 hours), reblogs included, counting only what was posted', async () => {
    const { inst, users: { alice, poster } } = env();
    const THREE_HOURS = 3 * 3600_000;
    const target = await postStatus(alice.client, { status: 'Reblog me' });
    // Each request with a token of its own, so that only the posting limit is used up.
    const token = () => inst.tokenFor(poster, 'write');
    const failed = await inst.anon.post('/api/v1/statuses', { status: '' }, { token: token(), ...from('198.51.100.30') });
    expect(failed.status).toBe(422);
    const one = await inst.anon.post('/api/v1/statuses', { status: 'One' }, { token: token(), ...from('198.51.100.30') });
    expect(one.status).toBe(200);
    // The failed post was given back: two of three are left.
    expect(limitHeaders(one)).toMatchObject({ limit: '3', remaining: '2' });
    expect((await inst.anon.post(`/api/v1/statuses/${target.id}/reblog`, undefined, { token: token(), ...from('198.51.100.30') })).status).toBe(200);
    const three = await inst.anon.post('/api/v1/statuses', { status: 'Three' }, { token: token(), ...from('198.51.100.31') });
    expect(three.status).toBe(200);
    expect(limitHeaders(three)).toMatchObject({ limit: '3', remaining: '0' });
    expectReset(limitHeaders(three).reset, THREE_HOURS);
    expectRefused(await inst.anon.post('/api/v1/statuses', { status: 'Four' }, { token: token(), ...from('198.51.100.32'), skipSchema: true }), 3, THREE_HOURS);
    // The next window starts afresh.
    setClockTo((Math.floor(now() / THREE_HOURS) + 1) * THREE_HOURS + 1000);
    expect((await inst.anon.post('/api/v1/statuses', { status: 'Later' }, { token: token(), ...from('198.51.100.32') })).status).toBe(200);
  });

  it('limits follows per account (400 a day)', async () => {
    const { inst, users: { follower } } = env();
    const DAY = 24 * 3600_000;
    const targets = [];
    for (let i = 0; i < 5; i++) targets.push(await inst.createUser(`target${i}`));
    // Two follows per token keep each token under its own limit.
    const tokens = [0, 1, 2].map(() => inst.tokenFor(follower, 'follow'));
    const statuses = [];
    for (const [i, t] of targets.entries()) {
      const res = await inst.anon.post(`/api/v1/accounts/${t.accountId}/follow`, undefined, {
        token: tokens[Math.floor(i / 2)],
        ...from('198.51.100.40'),
        skipSchema: true,
      });
      statuses.push(res.status);
      if (i === 4) expectRefused(res, 4, DAY);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });

  it('limits paging per user (300 per 15 minutes) apart from the per-token limit', async () => {
    const { inst, users: { pager } } = env();
    const path = '/api/v1/timelines/home?max_id=9000000000000000000';
    const tokens = [inst.tokenFor(pager, 'read'), inst.tokenFor(pager, 'read'), inst.tokenFor(pager, 'read'), inst.tokenFor(pager, 'read')];
    for (const token of tokens.slice(0, 3)) expect((await inst.anon.get(path, { token, ...from('198.51.100.50') })).status).toBe(200);
    expectRefused(await inst.anon.get(path, { token: tokens[3], ...from('198.51.100.50'), skipSchema: true }), 3, 15 * 60_000);
    // Not paging: only the token's own limit.
    expect((await inst.anon.get('/api/v1/timelines/home', { token: tokens[3], ...from('198.51.100.50') })).status).toBe(200);
  });

  it('limits deleting statuses per user (30 per 30 minutes)', async () => {
    const { inst, users: { deleter } } = env();
    const a = await postStatus(deleter.client, { status: 'First' });
    const b = await postStatus(deleter.client, { status: 'Second' });
    expect((await inst.anon.delete(`/api/v1/statuses/${a.id}`, { token: deleter.token, ...from('198.51.100.60') })).status).toBe(200);
    expectRefused(await inst.anon.delete(`/api/v1/statuses/${b.id}`, { token: deleter.token, ...from('198.51.100.60'), skipSchema: true }), 1, 30 * 60_000);
  });

  it('limits sign-ups per address (5 per 30 minutes)', async () => {
    const { inst } = env();
    const app = await registerApp(inst.anon, { scopes: 'read write' });
    const tok = await inst.anon.post('/oauth/token', undefined, { form: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret, scope: 'write' } });
    const signUp = (name: string, address: string) =>
      inst.anon.post('/api/v1/accounts', { username: name, email: `${name}@example.test`, password: `${name}-password-1`, agreement: true, locale: 'en' }, { token: tok.body.access_token, ...from(address), skipSchema: true });
    expect((await signUp('newbie1', '198.51.100.70')).status).toBe(200);
    expectRefused(await signUp('newbie2', '198.51.100.70'), 1, 30 * 60_000);
    expect((await signUp('newbie3', '198.51.100.71')).status).toBe(200);
  });

  it('limits sign-in attempts per address (25 per 5 minutes): the password grant and the sign-in page share it', async () => {
    const { inst, users: { alice } } = env();
    const app = await registerApp(inst.anon);
    const attempt = (address: string) =>
      inst.anon.post('/oauth/token', undefined, {
        form: { grant_type: 'password', client_id: app.client_id, client_secret: app.client_secret, username: 'alice@example.test', password: 'wrong' },
        ...from(address),
        skipSchema: true,
      });
    const first = await attempt('198.51.100.80');
    expect(first.status).toBe(400);
    expect(limitHeaders(first)).toMatchObject({ limit: '1', remaining: '0' });
    expectRefused(await attempt('198.51.100.80'), 1, FIVE_MINUTES);
    const page = await inst.anon.post('/auth/sign_in', undefined, { form: { login: 'alice', password: alice.password }, ...from('198.51.100.80'), skipSchema: true });
    expect(page.status).toBe(429);
    // Other grants are no sign-in.
    const credentials = await inst.anon.post('/oauth/token', undefined, { form: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret }, ...from('198.51.100.80') });
    expect(credentials.status).toBe(200);
  });

  it('limits the media proxy per address (30 per 10 minutes)', async () => {
    const { inst } = env();
    const first = await inst.anon.get('/media_proxy/1', { ...from('198.51.100.90'), skipSchema: true });
    expect(first.status).toBe(404);
    expectRefused(await inst.anon.get('/media_proxy/1', { ...from('198.51.100.90'), skipSchema: true }), 1, 10 * 60_000);
  });
});

describe('the owner’s rate limit setting', () => {
  const env = useInstance([], { rateLimitScale: 2 });

  it('raises every limit', async () => {
    const { inst } = env();
    const res = await inst.anon.get('/api/v1/instance', from('203.0.113.5'));
    expect(res.status).toBe(200);
    expect(limitHeaders(res)).toMatchObject({ limit: '600', remaining: '599' });
  });

  it('comes from the flag, the environment or the config file, and must be a positive number', () => {
    expect(resolveConfig({ dataDir: '/tmp/x' }, {}).rateLimitScale).toBe(1);
    expect(resolveConfig({ dataDir: '/tmp/x', rateLimitScale: '10' }, {}).rateLimitScale).toBe(10);
    expect(resolveConfig({ dataDir: '/tmp/x' }, { HEARTH_RATE_LIMIT_SCALE: '2.5' }).rateLimitScale).toBe(2.5);
    for (const bad of ['0', '-1', 'lots']) expect(() => resolveConfig({ dataDir: '/tmp/x', rateLimitScale: bad }, {})).toThrow(/rate limit scale/);
  });
});

describe('rate limit counters', () => {
  it('forget the windows that are over once many keys are counted, and not at every new key', () => {
    const rule = RULES.find((r) => r.name === 'api/address');
    if (!rule) throw new Error('no api/address rule');
    const throttle = new Throttle(rule, 1);
    const start = Math.floor(Date.now() / rule.periodMs) * rule.periodMs;
    for (let i = 0; i < 10_000; i++) throttle.counter(`198.18.${i >> 8}.${i & 255}`, start);
    expect(throttle.keys).toBe(10_000);
    // The next window: the first new key prunes the past one.
    const next = start + rule.periodMs;
    throttle.counter('203.0.113.1', next);
    expect(throttle.keys).toBe(1);
    // Counts of the current window are kept, and a past count starts again from zero.
    expect(throttle.counter('203.0.113.1', next).count).toBe(0);
    const c = throttle.counter('203.0.113.2', next);
    c.count = 5;
    expect(throttle.counter('203.0.113.2', next + rule.periodMs).count).toBe(0);
  });
});
