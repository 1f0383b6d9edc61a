import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../api/config.js';
import { Throttle } from '../../api/http/middleware/rate-limit.js';
import { RULES } from '../../api/http/middleware/rate-limit-rules.js';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { useInstance } from '../helpers/fixtures.js';
import { registerApp } from '../oauth/flow.js';
import { expectRefused, expectReset, from, getWithHost, limitHeaders, SCALE } from './rate-limit-helpers.js';

/**
 * Mastodon's general API limits (per token, per user, per address without a user) and who they
 * apply to, scaled down by the owner's setting so that each can be used up (see SCALE). The limits
 * of particular methods are in rate-limit-families.test.ts.
 */
const FIVE_MINUTES = 5 * 60_000;

describe('rate limits as Mastodon applies them', () => {
  const env = useInstance(['alice', 'busy', 'waiting'], { rateLimitScale: SCALE, allowedHosts: 'kim.example' });
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

  it('counts API requests per user too (1,500 per 5 minutes), whatever token they come with', async () => {
    const { inst, users: { busy } } = env();
    for (let t = 0; t < 5; t++) {
      const token = inst.tokenFor(busy, 'read');
      for (let i = 0; i < 3; i++) expect((await inst.anon.get('/api/v1/timelines/home', { token, ...from('198.51.100.2') })).status).toBe(200);
    }
    // A fresh token has all its own requests left, but the user has none.
    expectRefused(await inst.anon.get('/api/v1/timelines/home', { token: inst.tokenFor(busy, 'read'), ...from('198.51.100.3'), skipSchema: true }), 15, FIVE_MINUTES);
  });

  it('starts each window afresh when the last one is over', async () => {
    const { inst, users: { waiting } } = env();
    const token = inst.tokenFor(waiting, 'read');
    for (let i = 0; i < 3; i++) expect((await inst.anon.get('/api/v1/timelines/home', { token, ...from('198.51.100.4') })).status).toBe(200);
    const refused = await inst.anon.get('/api/v1/timelines/home', { token, ...from('198.51.100.4'), skipSchema: true });
    expectRefused(refused, 3, FIVE_MINUTES);
    // At the reset time the header gave, the token has its three requests again.
    setClockTo(Date.parse(limitHeaders(refused).reset ?? '') + 1);
    const again = await inst.anon.get('/api/v1/timelines/home', { token, ...from('198.51.100.4') });
    expect(again.status).toBe(200);
    expect(limitHeaders(again).remaining).toBe('2');
    expectReset(limitHeaders(again).reset, FIVE_MINUTES);
  });

  it('counts an app’s token (no user) per token and per address', async () => {
    const { inst } = env();
    const app = await registerApp(inst.anon);
    const appToken = async () => {
      const res = await inst.anon.post('/oauth/token', undefined, { form: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret } });
      return res.body.access_token as string;
    };
    const first = await appToken();
    for (let i = 0; i < 2; i++) expect((await inst.anon.get('/api/v1/apps/verify_credentials', { token: first, ...from('198.51.100.5') })).status).toBe(200);
    // The address's third request, with another token: both are counted, the address is used up.
    const second = await appToken();
    const third = await inst.anon.get('/api/v1/apps/verify_credentials', { token: second, ...from('198.51.100.5') });
    expect(limitHeaders(third)).toMatchObject({ limit: '3', remaining: '0' });
    expectRefused(await inst.anon.get('/api/v1/apps/verify_credentials', { token: second, ...from('198.51.100.5'), skipSchema: true }), 3, FIVE_MINUTES);
    expect((await inst.anon.get('/api/v1/apps/verify_credentials', { token: second, ...from('198.51.100.6') })).status).toBe(200);
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
});

describe('the owner’s rate limit setting', () => {
  const env = useInstance([], { rateLimitScale: 2 });

  it('raises every limit', async () => {
    const { inst } = env();
    const res = await inst.anon.get('/api/v1/instance', from('203.0.113.5'));
    expect(res.status).toBe(200);
    expect(limitHeaders(res)).toMatchObject({ limit: '600', remaining: '599' });
    // An app registration: 10 per 10 minutes instead of 5, its headers the closest limit's.
    const app = await inst.anon.post('/api/v1/apps', { client_name: 'Scaled', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' }, from('203.0.113.5'));
    expect(app.status).toBe(200);
    expect(limitHeaders(app)).toMatchObject({ limit: '10', remaining: '9' });
  });

  it('comes from the flag, the environment or the config file (in that order), and must be a positive number', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-scale-'));
    try {
      expect(resolveConfig({ dataDir: dir }, {}).rateLimitScale).toBe(1);
      writeFileSync(join(dir, 'hearth.json'), JSON.stringify({ rateLimitScale: 20 }));
      expect(resolveConfig({ dataDir: dir }, {}).rateLimitScale).toBe(20);
      expect(resolveConfig({ dataDir: dir }, { HEARTH_RATE_LIMIT_SCALE: '2.5' }).rateLimitScale).toBe(2.5);
      expect(resolveConfig({ dataDir: dir, rateLimitScale: '10' }, { HEARTH_RATE_LIMIT_SCALE: '2.5' }).rateLimitScale).toBe(10);
      for (const bad of ['0', '-1', 'lots']) expect(() => resolveConfig({ dataDir: dir, rateLimitScale: bad }, {})).toThrow(/rate limit scale/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
