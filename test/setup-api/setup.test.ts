import { afterEach, describe, expect, it } from 'vitest';
import { setupToken } from '../../api/core/setup.js';
import { countUsers } from '../../api/db/repos/users.js';
import { Browser } from '../helpers/browser.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { authorizePath, registerApp } from '../oauth/flow.js';

/** A request as the app's first-run screen sends it (JSON), with extra headers. */
async function post(inst: TestInstance, body: unknown, headers: Record<string, string> = {}, type = 'application/json') {
  const res = await fetch(`${inst.url}/api/hearth/setup`, {
    method: 'POST',
    headers: { 'content-type': type, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown>, cookies: res.headers.getSetCookie() };
}

const get = async (inst: TestInstance, query = '', headers: Record<string, string> = {}) =>
  (await (await fetch(`${inst.url}/api/hearth/setup${query}`, { headers })).json()) as { needed: boolean; allowed: boolean };

const kim = { username: 'kim', email: 'kim@example.test', password: 'long-enough-1' };

describe('first run through the API', () => {
  let inst: TestInstance;
  afterEach(async () => {
    await inst?.close();
  });
  const users = () => countUsers(inst.deps.db);

  it('says whether setup is needed and allowed: this computer, or anyone with the setup token', async () => {
    inst = await startInstance();
    expect(await get(inst)).toEqual({ needed: true, allowed: true });
    // A proxy on this machine forwarding someone else's request: the token is needed.
    const forwarded = { 'x-forwarded-for': '198.51.100.7' };
    expect(await get(inst, '', forwarded)).toEqual({ needed: true, allowed: false });
    expect(await get(inst, '?token=wrong', forwarded)).toEqual({ needed: true, allowed: false });
    expect(await get(inst, `?token=${setupToken(inst.deps)}`, forwarded)).toEqual({ needed: true, allowed: true });
  });

  it('refuses form bodies (415) and other sites (403), and writes nothing', async () => {
    inst = await startInstance();
    const form = await post(inst, new URLSearchParams(kim).toString(), {}, 'application/x-www-form-urlencoded');
    expect(form.status).toBe(415);
    expect(form.body).toEqual({ error: 'Only JSON bodies are accepted here' });
    const plain = await post(inst, JSON.stringify(kim), {}, 'text/plain');
    expect(plain.status).toBe(415);
    for (const origin of ['https://evil.example', 'null', `http://localhost:${new URL(inst.url).port}`]) {
      const res = await post(inst, kim, { origin });
      expect(res.status, origin).toBe(403);
      expect(res.body).toEqual({ error: 'Requests from other sites may not set up this instance' });
    }
    expect(users()).toBe(0);
  });

  it('checks the token when the request is not from this computer', async () => {
    inst = await startInstance();
    const forwarded = { 'x-forwarded-for': '198.51.100.7' };
    const refused = await post(inst, kim, forwarded);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/only possible from this computer/);
    expect((await post(inst, { ...kim, token: 'not-the-token' }, forwarded)).status).toBe(403);
    expect(users()).toBe(0);
    const ok = await post(inst, { ...kim, token: setupToken(inst.deps) }, forwarded);
    expect(ok.status).toBe(200);
    expect(countUsers(inst.deps.db, 'owner')).toBe(1);
  });

  it.each([
    [{ ...kim, username: 'kim!' }, 'Validation failed: Username must contain only letters, numbers and underscores', 'username'],
    [{ ...kim, password: 'short' }, 'Validation failed: Password is too short (minimum is 8 characters)', 'password'],
    [{ ...kim, email: 'not-an-email' }, 'Validation failed: Email is invalid', 'email'],
    [{ ...kim, password_confirmation: 'something-else' }, "Validation failed: Password confirmation doesn't match Password", 'password_confirmation'],
    [{ ...kim, username: '' }, "Validation failed: Username can't be blank", 'username'],
  ])('answers 422 with details for %j, writes nothing and signs no one in', async (values, message, attribute) => {
    inst = await startInstance();
    const res = await post(inst, values);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe(message);
    expect(Object.keys(res.body.details as object)).toEqual([attribute]);
    expect(users()).toBe(0);
    expect(res.cookies.some((c) => c.startsWith('hearth_session='))).toBe(false);
  });

  it('makes the owner, signs the browser in for the OAuth pages, then answers 404', async () => {
    inst = await startInstance();
    const host = new URL(inst.url).host;
    const res = await post(inst, kim, { origin: `http://${host}` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ account_id: expect.stringMatching(/^\d+$/), username: 'kim' });
    expect(countUsers(inst.deps.db, 'owner')).toBe(1);
    const session = res.cookies.find((c) => c.startsWith('hearth_session='));
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);

    // The app's OAuth authorization that follows shows the consent form, not the sign-in form.
    const browser = new Browser(inst.url);
    browser.cookies.set('hearth_session', (session ?? '').split(';')[0]?.slice('hearth_session='.length) ?? '');
    const app = await registerApp(inst.anon);
    const consent = await browser.get(authorizePath(app));
    expect(consent.status).toBe(200);
    expect(consent.forms[0]?.action).toBe('/oauth/authorize');
    expect(consent.text).toContain('@kim@');
    // Without the cookie the same page asks to sign in.
    expect((await new Browser(inst.url).get(authorizePath(app))).forms[0]?.action).toBe('/auth/sign_in');

    expect(await get(inst)).toEqual({ needed: false, allowed: false });
    const again = await post(inst, { ...kim, username: 'eve' });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'This instance is set up already' });
    expect(users()).toBe(1);
  });
});
