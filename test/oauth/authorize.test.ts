import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalUser } from '../../api/core/accounts/create.js';
import { scopeInfo } from '../../api/core/oauth/scopes.js';
import { updateUser } from '../../api/db/repos/users.js';
import { safeReturnTo } from '../../api/http/oauth/sign-in.js';
import { Browser } from '../helpers/browser.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import {
  authorizeInBrowser,
  authorizePath,
  codeFromRedirect,
  exchangeCode,
  OOB,
  REDIRECT,
  registerApp,
  signIn,
  type RegisteredApp,
} from './flow.js';

describe('authorization code flow (pages)', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let app: RegisteredApp;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    app = await registerApp(inst.anon, { name: 'Elephant', redirectUris: [REDIRECT, OOB], scopes: 'read write follow push profile admin:write' });
  });
  afterAll(async () => {
    await inst.close();
  });

  it('signs in, asks for consent, redirects with code and state, and the code buys a working token', async () => {
    const browser = new Browser(inst.url);
    const state = 'x y&z=1/é?';
    const login = await browser.get(authorizePath(app, { scope: 'read write', state }));
    expect(login.status).toBe(200);
    expect(login.headers.get('content-type')).toMatch(/^text\/html/);
    expect(login.text).toContain('Elephant');
    const consent = await signIn(browser, login, 'alice', alice.password);
    expect(consent.url).toContain('/oauth/authorize?');
    expect(consent.text).toContain(`@alice@${new URL(inst.url).host}`);
    const done = await browser.submit(consent, {}, { action: '/oauth/authorize', press: 'Authorize' });
    const { code, state: returned, url } = codeFromRedirect(done);
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
    expect(returned).toBe(state);
    expect(code).toMatch(/^[A-Za-z0-9_-]{40,}$/);

    const res = await exchangeCode(inst.anon, app, code ?? '', { redirect_uri: REDIRECT });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ token_type: 'Bearer', scope: 'read write' });
    expect(Math.abs(res.body.created_at - Date.now() / 1000)).toBeLessThan(60);
    expect(typeof res.body.refresh_token).toBe('string');
    const who = await inst.anon.get('/api/v1/accounts/verify_credentials', { token: res.body.access_token });
    expect(who.status).toBe(200);
    expect(who.body.username).toBe('alice');
  });

  it('keeps the browser signed in: the next authorization goes straight to consent, unless force_login', async () => {
    const browser = new Browser(inst.url);
    const first = await authorizeInBrowser(browser, authorizePath(app), alice);
    expect(codeFromRedirect(first).code).toBeTruthy();
    const again = await browser.get(authorizePath(app));
    expect(again.forms[0]?.action).toBe('/oauth/authorize');
    const forced = await browser.get(authorizePath(app, { force_login: 'true' }));
    expect(forced.forms[0]?.action).toBe('/auth/sign_in');
    // After signing in again the request continues (without looping back to the login form).
    const consent = await signIn(browser, forced, 'alice', alice.password);
    expect(consent.forms[0]?.action).toBe('/oauth/authorize');
    expect(consent.url).not.toContain('force_login');
  });

  it('shows the code on a page for urn:ietf:wg:oauth:2.0:oob, and the code works', async () => {
    const browser = new Browser(inst.url);
    const page = await authorizeInBrowser(browser, authorizePath(app, { redirect_uri: OOB }), alice);
    expect(page.redirectedTo).toBeNull();
    expect(page.status).toBe(200);
    const code = /id="authorization-code">([^<]+)</.exec(page.text)?.[1];
    expect(code).toBeTruthy();
    const res = await exchangeCode(inst.anon, app, code ?? '', { redirect_uri: OOB });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('read');
  });

  it('sends error=access_denied with the state back when the user denies', async () => {
    const browser = new Browser(inst.url);
    const page = await authorizeInBrowser(browser, authorizePath(app, { state: 's1' }), alice, 'Deny');
    const { code, url } = codeFromRedirect(page);
    expect(code).toBeNull();
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe('s1');
  });

  it('shows a page (no redirect) when an oob request is denied', async () => {
    const browser = new Browser(inst.url);
    const page = await authorizeInBrowser(browser, authorizePath(app, { redirect_uri: OOB }), alice, 'Deny');
    expect(page.redirectedTo).toBeNull();
    expect(page.text).toContain('Authorization denied');
  });

  it('shows an error page and never redirects for an unknown client_id', async () => {
    const res = await fetch(`${inst.url}/oauth/authorize?response_type=code&client_id=nope&redirect_uri=${encodeURIComponent(REDIRECT)}`, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('Client authentication failed');
  });

  it('shows an error page and never redirects for a redirect_uri the app did not register', async () => {
    const evil = 'https://evil.example/steal';
    const res = await fetch(`${inst.url}${authorizePath(app, { redirect_uri: evil, scope: 'nonsense' })}`, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('redirect uri');
  });

  it.each([
    [{ scope: 'read admin:read' }, 'invalid_scope'],
    [{ scope: 'bogus' }, 'invalid_scope'],
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ response_type: undefined }, 'invalid_request'],
    [{ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, 'invalid_request'],
    [{ code_challenge: 'short', code_challenge_method: 'S256' }, 'invalid_request'],
  ])('redirects %j back to the client with error %s and the state', async (params, error) => {
    const res = await fetch(`${inst.url}${authorizePath(app, { state: 'st', ...params })}`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const url = new URL(res.headers.get('location') ?? '');
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
    expect(url.searchParams.get('error')).toBe(error);
    expect(url.searchParams.get('state')).toBe('st');
  });

  it('lists every requested scope with its description and marks dangerous ones', async () => {
    const browser = new Browser(inst.url);
    const login = await browser.get(authorizePath(app, { scope: 'read write push admin:write' }));
    const consent = await signIn(browser, login, 'alice', alice.password);
    const items = new Map<string, string>();
    for (const m of consent.text.matchAll(/<li class="[^"]*" data-scope="([^"]+)">([\s\S]*?)<\/li>/g)) items.set(m[1] ?? '', m[2] ?? '');
    expect([...items.keys()]).toEqual(['read', 'write', 'push', 'admin:write']);
    for (const [scope, text] of items) {
      expect(text).toContain(scopeInfo(scope).description);
      expect(text.includes('Dangerous'), scope).toBe(scopeInfo(scope).dangerous);
    }
    expect(items.get('write')).toContain('Dangerous');
    expect(items.get('admin:write')).toContain('Dangerous');
    expect(items.get('read')).not.toContain('Dangerous');
  });

  it('serves pages with a strict CSP, no framing, no caching, and escapes what apps send', async () => {
    const nasty = await registerApp(inst.anon, { name: '<script>alert(1)</script>', scopes: 'read' });
    const browser = new Browser(inst.url);
    const login = await browser.get(authorizePath(nasty, { state: '"><img src=x onerror=alert(2)>' }));
    const consent = await signIn(browser, login, 'alice', alice.password);
    expect(consent.text).not.toContain('<script>alert(1)');
    expect(consent.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(consent.text).not.toContain('<img src=x');
    const csp = consent.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    // The consent form redirects to the client, so its origin is an allowed form target.
    expect(csp).toMatch(/form-action 'self' https:\/\/client\.example/);
    expect(consent.headers.get('x-frame-options')).toBe('DENY');
    expect(consent.headers.get('cache-control')).toBe('no-store');
    // The state survives the round trip unchanged.
    expect(consent.forms[0]?.fields.state).toBe('"><img src=x onerror=alert(2)>');
  });

  it('refuses a consent post without the session CSRF token', async () => {
    const browser = new Browser(inst.url);
    const login = await browser.get(authorizePath(app));
    const consent = await signIn(browser, login, 'alice', alice.password);
    const fields = new URLSearchParams({ ...consent.forms[0]?.fields, csrf_token: 'forged', decision: 'approve' });
    const res = await browser.request('POST', '/oauth/authorize', fields);
    expect(res.status).toBe(403);
    expect(res.redirectedTo).toBeNull();
  });

  it('asks a browser without a session to sign in instead of approving', async () => {
    const browser = new Browser(inst.url);
    const fields = new URLSearchParams({ response_type: 'code', client_id: app.client_id, redirect_uri: REDIRECT, decision: 'approve' });
    const res = await browser.request('POST', '/oauth/authorize', fields);
    expect(res.status).toBe(401);
    expect(res.redirectedTo).toBeNull();
    expect(res.forms[0]?.action).toBe('/auth/sign_in');
  });
});

describe('sign-in page', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let app: RegisteredApp;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice', { email: 'Alice@Example.test' });
    app = await registerApp(inst.anon);
    await createLocalUser(inst.deps, { username: 'pending', password: 'pending-password', approved: false });
    const disabled = await createLocalUser(inst.deps, { username: 'disabled', password: 'disabled-password' });
    updateUser(inst.deps.db, disabled.userId, { disabled: 1 });
  });
  afterAll(async () => {
    await inst.close();
  });

  it('sets an httpOnly SameSite=Lax session cookie, stored only as a hash', async () => {
    const browser = new Browser(inst.url);
    const login = await browser.get('/auth/sign_in');
    const data = new URLSearchParams({ ...login.forms[0]?.fields, login: 'alice', password: alice.password });
    const res = await fetch(`${inst.url}/auth/sign_in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `hearth_csrf=${browser.cookies.get('hearth_csrf')}` },
      body: data.toString(),
      redirect: 'manual',
    });
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('hearth_session='));
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    const value = decodeURIComponent(/^hearth_session=([^;]+)/.exec(cookie ?? '')?.[1] ?? '');
    const stored = inst.deps.db.query<{ session_hash: string }>('SELECT session_hash FROM web_sessions WHERE user_id = @user_id').all({ user_id: alice.userId });
    expect(stored.map((s) => s.session_hash)).toContain(createHash('sha256').update(value).digest('hex'));
    expect(stored.map((s) => s.session_hash)).not.toContain(value);
  });

  it('accepts the e-mail address as login, case-insensitively', async () => {
    const browser = new Browser(inst.url);
    const page = await authorizeInBrowser(browser, authorizePath(app), { username: 'alice@example.TEST', password: alice.password });
    expect(codeFromRedirect(page).code).toBeTruthy();
  });

  it('says the same thing for an unknown user and a wrong password, and starts no session', async () => {
    const texts: string[] = [];
    for (const [login, password] of [
      ['nobody', 'whatever-password'],
      ['alice', 'wrong-password'],
    ] as const) {
      const browser = new Browser(inst.url);
      const page = await signIn(browser, await browser.get(authorizePath(app)), login, password);
      expect(page.status).toBe(401);
      expect(browser.cookies.has('hearth_session')).toBe(false);
      const error = /<p class="error" role="alert">([^<]+)<\/p>/.exec(page.text)?.[1];
      expect(error).toBeTruthy();
      texts.push(error ?? '');
      // The form is shown again, keeping the login but not the password.
      expect(page.forms[0]?.fields.login).toBe(login);
      expect(page.forms[0]?.fields.password).toBe('');
    }
    expect(texts[0]).toBe(texts[1]);
  });

  it.each([
    ['pending', 'pending-password', /waiting for approval/],
    ['disabled', 'disabled-password', /disabled/],
  ])('does not let a %s user sign in', async (login, password, message) => {
    const browser = new Browser(inst.url);
    const page = await signIn(browser, await browser.get(authorizePath(app)), login, password);
    expect(page.status).toBe(401);
    expect(page.text).toMatch(message);
    expect(browser.cookies.has('hearth_session')).toBe(false);
  });

  it('refuses a login post without the form CSRF token', async () => {
    const browser = new Browser(inst.url);
    await browser.get('/auth/sign_in');
    const res = await browser.request('POST', '/auth/sign_in', new URLSearchParams({ login: 'alice', password: alice.password, csrf_token: 'forged' }));
    expect(res.status).toBe(403);
    expect(browser.cookies.has('hearth_session')).toBe(false);
  });

  it('never returns to another site after signing in', async () => {
    expect(safeReturnTo('/oauth/authorize?x=1')).toBe('/oauth/authorize?x=1');
    for (const bad of ['//evil.example/', '/\\evil.example', 'https://evil.example/', 'evil', '/\tx', undefined]) expect(safeReturnTo(bad)).toBeNull();
    const browser = new Browser(inst.url);
    const login = await browser.get('/auth/sign_in?return_to=//evil.example/x');
    expect(login.forms[0]?.fields.return_to).toBe('');
    const page = await browser.submit(login, { login: 'alice', password: alice.password, return_to: '//evil.example/x' });
    expect(page.redirectedTo).toBeNull();
    expect(page.status).toBe(200);
    expect(page.text).toContain('signed in');
  });
});
