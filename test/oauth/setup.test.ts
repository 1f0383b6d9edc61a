import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackAddress, setupAllowed, setupToken } from '../../api/core/setup.js';
import { countUsers } from '../../api/db/repos/users.js';
import { Browser } from '../helpers/browser.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { authorizePath, registerApp } from './flow.js';

describe('first-run /setup', () => {
  let inst: TestInstance;

  beforeAll(async () => {
    inst = await startInstance();
  });
  afterAll(async () => {
    await inst.close();
  });

  const owners = () => countUsers(inst.deps.db, 'owner');
  const users = () => countUsers(inst.deps.db);

  it('shows the form with a CSRF token and carries the setup token', async () => {
    const browser = new Browser(inst.url);
    const page = await browser.get('/setup?token=abc');
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const form = page.forms[0];
    expect(form?.action).toBe('/setup');
    expect(form?.fields.token).toBe('abc');
    expect(form?.fields.csrf_token).toBe(browser.cookies.get('hearth_csrf'));
    expect(Object.keys(form?.fields ?? {}).sort()).toEqual(['csrf_token', 'email', 'password', 'password_confirmation', 'token', 'username']);
  });

  it.each([
    [{ username: 'kim', password: 'long-enough-1', password_confirmation: 'different-1' }, "Password confirmation doesn't match Password"],
    [{ username: 'kim!', password: 'long-enough-1', password_confirmation: 'long-enough-1' }, 'Username must contain only letters, numbers and underscores'],
    [{ username: 'kim', password: 'short', password_confirmation: 'short' }, 'Password is too short'],
    [{ username: 'kim', email: 'not-an-email', password: 'long-enough-1', password_confirmation: 'long-enough-1' }, 'Email is invalid'],
    [{ username: '', password: 'long-enough-1', password_confirmation: 'long-enough-1' }, "Username can't be blank"],
  ])('shows %j again with the error and writes nothing', async (values, message) => {
    const browser = new Browser(inst.url);
    const page = await browser.submit(await browser.get('/setup'), values);
    expect(page.status).toBe(422);
    expect(page.text).toContain(message.replace(/'/g, '&#39;'));
    expect(page.forms[0]?.fields.username).toBe(values.username);
    expect(page.forms[0]?.fields.password).toBe('');
    expect(users()).toBe(0);
    expect(browser.cookies.has('hearth_session')).toBe(false);
  });

  it('refuses a post without the form CSRF token', async () => {
    const browser = new Browser(inst.url);
    await browser.get('/setup');
    const res = await browser.request('POST', '/setup', new URLSearchParams({ username: 'kim', password: 'long-enough-1', password_confirmation: 'long-enough-1', csrf_token: 'forged' }));
    expect(res.status).toBe(403);
    expect(users()).toBe(0);
  });

  it('creates the owner once, signs them in, shows the instance URL, then answers 404', async () => {
    const browser = new Browser(inst.url);
    const done = await browser.submit(await browser.get('/setup'), { username: 'kim', email: 'kim@example.test', password: 'long-enough-1', password_confirmation: 'long-enough-1' });
    expect(done.status).toBe(200);
    expect(done.text).toContain(inst.url);
    expect(done.text).toContain(`@kim@${new URL(inst.url).host}`);
    expect(owners()).toBe(1);
    expect(browser.cookies.has('hearth_session')).toBe(true);

    // The new owner is signed in: an app's authorization goes straight to the consent form.
    const app = await registerApp(inst.anon);
    const consent = await browser.get(authorizePath(app));
    expect(consent.forms[0]?.action).toBe('/oauth/authorize');
    expect(consent.text).toContain('@kim@');

    expect((await browser.get('/setup')).status).toBe(404);
    const again = await browser.request('POST', '/setup', new URLSearchParams({ username: 'eve', password: 'long-enough-1', password_confirmation: 'long-enough-1' }));
    expect(again.status).toBe(404);
    expect(users()).toBe(1);
  });
});

describe('setup guard', () => {
  it('recognises loopback peers only from the socket address', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['10.0.0.1', '192.168.1.2', '::ffff:10.0.0.1', 'fe80::1', '', undefined, '127.0.0.1.evil']) expect(isLoopbackAddress(a), String(a)).toBe(false);
  });

  it('lets a non-loopback request through only with the right token', () => {
    const expectedToken = 'right-token-value';
    expect(setupAllowed({ remoteAddress: '203.0.113.9', givenToken: undefined, expectedToken })).toBe(false);
    expect(setupAllowed({ remoteAddress: '203.0.113.9', givenToken: 'wrong-token-value', expectedToken })).toBe(false);
    expect(setupAllowed({ remoteAddress: '203.0.113.9', givenToken: 'right', expectedToken })).toBe(false);
    expect(setupAllowed({ remoteAddress: '203.0.113.9', givenToken: expectedToken, expectedToken })).toBe(true);
    expect(setupAllowed({ remoteAddress: '127.0.0.1', givenToken: undefined, expectedToken })).toBe(true);
  });

  it('asks a proxy on this machine (a loopback peer forwarding for someone else) for the token too', async () => {
    const expectedToken = 'right-token-value';
    expect(setupAllowed({ remoteAddress: '127.0.0.1', forwarded: true, givenToken: undefined, expectedToken })).toBe(false);
    expect(setupAllowed({ remoteAddress: '127.0.0.1', forwarded: true, givenToken: expectedToken, expectedToken })).toBe(true);
    const inst = await startInstance();
    try {
      const proxied = await fetch(`${inst.url}/setup`, { headers: { 'x-forwarded-for': '198.51.100.7' } });
      expect(proxied.status).toBe(403);
      expect((await fetch(`${inst.url}/setup`)).status).toBe(200);
    } finally {
      await inst.close();
    }
  });

  it('keeps one random token per running instance', async () => {
    const a = await startInstance();
    const b = await startInstance();
    try {
      expect(setupToken(a.deps)).toBe(setupToken(a.deps));
      expect(setupToken(a.deps)).not.toBe(setupToken(b.deps));
      expect(setupToken(a.deps)).toMatch(/^[A-Za-z0-9_-]{32}$/);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
