import { afterEach, describe, expect, it } from 'vitest';
import { now, resetClock, setClockTo } from '../../api/util/clock.js';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import { registerApp } from '../oauth/flow.js';
import { expectRefused, expectReset, from, limitHeaders, MINUTE, SCALE } from './rate-limit-helpers.js';

/**
 * The limits of particular methods, as Mastodon applies them (rack-attack's, and its RateLimiter
 * families for posting, following and reporting), scaled down by the owner's setting (see SCALE).
 * Each request with a token of its own where the per-token API limit would otherwise be reached
 * first.
 */
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('rate limits of particular methods', () => {
  const env = useInstance(['alice', 'poster', 'follower', 'reporter', 'pager', 'deleter', 'uploader', 'confirmer'], { rateLimitScale: SCALE });
  afterEach(() => resetClock());

  it('limits media uploads per user (30 per 30 minutes), counting every attempt', async () => {
    const { inst, users: { uploader } } = env();
    const first = await inst.anon.post('/api/v2/media', undefined, { token: uploader.token, ...from('198.51.100.20'), skipSchema: true });
    expect(first.status).toBe(422);
    expect(limitHeaders(first)).toMatchObject({ limit: '1', remaining: '0' });
    const second = await inst.anon.post('/api/v1/media', undefined, { token: inst.tokenFor(uploader, 'write'), ...from('198.51.100.21'), skipSchema: true });
    expectRefused(second, 1, 30 * MINUTE);
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

  it('limits reports per account (400 a day), counting only what was reported', async () => {
    const { inst, users: { reporter } } = env();
    const targets = [];
    for (let i = 0; i < 5; i++) targets.push(await inst.createUser(`reported${i}`));
    const tokens = [0, 1, 2].map(() => inst.tokenFor(reporter, 'write'));
    // A report of no account fails, and is not counted.
    const failed = await inst.anon.post('/api/v1/reports', { account_id: '1' }, { token: tokens[0], ...from('198.51.100.45'), skipSchema: true });
    expect(failed.status).toBe(404);
    const statuses = [];
    for (const [i, t] of targets.entries()) {
      const res = await inst.anon.post('/api/v1/reports', { account_id: t.accountId, category: 'spam' }, { token: tokens[Math.floor((i + 1) / 2)], ...from('198.51.100.45'), skipSchema: true });
      statuses.push(res.status);
      if (i === 3) expect(limitHeaders(res)).toMatchObject({ limit: '4', remaining: '0' });
      if (i === 4) expectRefused(res, 4, DAY);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });

  it('limits paging per user (300 per 15 minutes) apart from the per-token limit', async () => {
    const { inst, users: { pager } } = env();
    const path = '/api/v1/timelines/home?max_id=9000000000000000000';
    const tokens = [inst.tokenFor(pager, 'read'), inst.tokenFor(pager, 'read'), inst.tokenFor(pager, 'read'), inst.tokenFor(pager, 'read')];
    for (const token of tokens.slice(0, 3)) expect((await inst.anon.get(path, { token, ...from('198.51.100.50') })).status).toBe(200);
    expectRefused(await inst.anon.get(path, { token: tokens[3], ...from('198.51.100.50'), skipSchema: true }), 3, 15 * MINUTE);
    // Not paging: only the token's own limit.
    expect((await inst.anon.get('/api/v1/timelines/home', { token: tokens[3], ...from('198.51.100.50') })).status).toBe(200);
  });

  it('limits paging without a user per address (300 per 15 minutes), on any path', async () => {
    const { inst } = env();
    // Outside the API, so that only the paging limit counts.
    const page = (address: string) => inst.anon.get('/.well-known/nodeinfo?page=2', { ...from(address), skipSchema: true });
    for (let i = 0; i < 3; i++) {
      const res = await page('198.51.100.55');
      expect(res.status).toBe(200);
      expect(limitHeaders(res)).toMatchObject({ limit: '3', remaining: String(2 - i) });
    }
    expectRefused(await page('198.51.100.55'), 3, 15 * MINUTE);
    expect((await page('198.51.100.56')).status).toBe(200);
  });

  it('limits deleting statuses and undoing reblogs per user (30 per 30 minutes)', async () => {
    const { inst, users: { alice, deleter } } = env();
    const a = await postStatus(deleter.client, { status: 'First' });
    const b = await postStatus(deleter.client, { status: 'Second' });
    expect((await inst.anon.delete(`/api/v1/statuses/${a.id}`, { token: deleter.token, ...from('198.51.100.60') })).status).toBe(200);
    expectRefused(await inst.anon.delete(`/api/v1/statuses/${b.id}`, { token: deleter.token, ...from('198.51.100.60'), skipSchema: true }), 1, 30 * MINUTE);
    const target = await postStatus(alice.client, { status: 'Boost me' });
    expect((await deleter.client.post(`/api/v1/statuses/${target.id}/reblog`)).status).toBe(200);
    expectRefused(await inst.anon.post(`/api/v1/statuses/${target.id}/unreblog`, undefined, { token: deleter.token, ...from('198.51.100.61'), skipSchema: true }), 1, 30 * MINUTE);
  });

  it('limits sign-ups per address (5 per 30 minutes)', async () => {
    const { inst } = env();
    const app = await registerApp(inst.anon, { scopes: 'read write' });
    const tok = await inst.anon.post('/oauth/token', undefined, { form: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret, scope: 'write' } });
    const signUp = (name: string, address: string) =>
      inst.anon.post('/api/v1/accounts', { username: name, email: `${name}@example.test`, password: `${name}-password-1`, agreement: true, locale: 'en' }, { token: tok.body.access_token, ...from(address), skipSchema: true });
    expect((await signUp('newbie1', '198.51.100.70')).status).toBe(200);
    expectRefused(await signUp('newbie2', '198.51.100.70'), 1, 30 * MINUTE);
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
    expectRefused(await attempt('198.51.100.80'), 1, 5 * MINUTE);
    const page = await inst.anon.post('/auth/sign_in', undefined, { form: { login: 'alice', password: alice.password }, ...from('198.51.100.80'), skipSchema: true });
    expect(page.status).toBe(429);
    // Other grants are no sign-in.
    const credentials = await inst.anon.post('/oauth/token', undefined, { form: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret }, ...from('198.51.100.80') });
    expect(credentials.status).toBe(200);
  });

  it('limits sign-in attempts per login too (25 an hour), from any address, the login’s case aside', async () => {
    const { inst, users: { poster } } = env();
    const app = await registerApp(inst.anon);
    const grant = (login: string, address: string) =>
      inst.anon.post('/oauth/token', undefined, {
        form: { grant_type: 'password', client_id: app.client_id, client_secret: app.client_secret, username: login, password: 'wrong' },
        ...from(address),
        skipSchema: true,
      });
    expect((await grant('poster@example.test', '198.51.100.81')).status).toBe(400);
    expectRefused(await grant('poster@example.test', '198.51.100.82'), 1, HOUR);
    // Even with the right password, and on the sign-in page.
    const page = await inst.anon.post('/auth/sign_in', undefined, { form: { login: 'Poster@Example.test', password: poster.password }, ...from('198.51.100.83'), skipSchema: true });
    expect(page.status).toBe(429);
    expect(limitHeaders(page)).toMatchObject({ limit: '1', remaining: '0' });
    expect(page.text).toContain('Too many requests');
    // Another login from a fresh address is its own.
    expect((await grant('nobody@example.test', '198.51.100.84')).status).toBe(400);
    // From this machine, nothing is counted.
    const local = await inst.anon.post('/oauth/token', undefined, {
      form: { grant_type: 'password', client_id: app.client_id, client_secret: app.client_secret, username: 'poster@example.test', password: poster.password },
    });
    expect(local.status).toBe(200);
  });

  it('limits app registrations per address (5 per 10 minutes)', async () => {
    const { inst } = env();
    const register = (address: string) =>
      inst.anon.post('/api/v1/apps', { client_name: 'Spammy', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' }, { ...from(address), skipSchema: true });
    const first = await register('198.51.100.85');
    expect(first.status).toBe(200);
    expect(limitHeaders(first)).toMatchObject({ limit: '1', remaining: '0' });
    expectRefused(await register('198.51.100.85'), 1, 10 * MINUTE);
    expect((await register('198.51.100.86')).status).toBe(200);
  });

  it('limits asking for the confirmation mail again, per address and per user', async () => {
    const { inst, users: { confirmer } } = env();
    const ask = (token: string, address: string) => inst.anon.post('/api/v1/emails/confirmations', undefined, { token, ...from(address), skipSchema: true });
    // Whatever the answer (here: already confirmed), the attempt counts.
    expect((await ask(inst.tokenFor(confirmer, 'write'), '198.51.100.87')).status).toBe(403);
    expectRefused(await ask(inst.tokenFor(confirmer, 'write'), '198.51.100.88'), 1, 30 * MINUTE);
    const other = await inst.createUser('confirmer2');
    expectRefused(await ask(inst.tokenFor(other, 'write'), '198.51.100.87'), 1, 5 * MINUTE);
  });

  it('limits the media proxy per address (30 per 10 minutes)', async () => {
    const { inst } = env();
    const first = await inst.anon.get('/media_proxy/1', { ...from('198.51.100.90'), skipSchema: true });
    expect(first.status).toBe(404);
    expectRefused(await inst.anon.get('/media_proxy/1', { ...from('198.51.100.90'), skipSchema: true }), 1, 10 * MINUTE);
  });
});
