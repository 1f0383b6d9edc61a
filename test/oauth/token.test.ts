import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../api/core/oauth/scopes.js';
import { now, resetClock, setClockTo } from '../../api/util/clock.js';
import { Browser } from '../helpers/browser.js';
import { useInstance } from '../helpers/fixtures.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { authorizeInBrowser, authorizePath, codeFromRedirect, exchangeCode, pkcePair, REDIRECT, registerApp, userToken, type RegisteredApp } from './flow.js';

const INVALID_GRANT = {
  error: 'invalid_grant',
  error_description:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
};

describe('POST /oauth/token and /oauth/revoke', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let app: RegisteredApp;

  const getCode = async (params: Record<string, string> = {}, target: RegisteredApp = app) => {
    const page = await authorizeInBrowser(new Browser(inst.url), authorizePath(target, params), alice);
    return codeFromRedirect(page).code ?? '';
  };
  const verify = (token: string) => inst.anon.get('/api/v1/apps/verify_credentials', { token });
  const form = (body: Record<string, string>, headers?: Record<string, string>) => inst.anon.post('/oauth/token', undefined, { form: body, ...(headers ? { headers } : {}) });

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    app = await registerApp(inst.anon, { scopes: 'read write follow push profile' });
  });
  afterAll(async () => {
    await inst.close();
  });
  afterEach(() => {
    resetClock();
  });

  it('checks PKCE: the right verifier works; a wrong or missing one is invalid_grant', async () => {
    const { verifier, challenge } = pkcePair();
    const good = await getCode({ code_challenge: challenge, code_challenge_method: 'S256' });
    expect((await exchangeCode(inst.anon, app, good, { code_verifier: verifier })).status).toBe(200);

    const wrong = await getCode({ code_challenge: challenge, code_challenge_method: 'S256' });
    const bad = await exchangeCode(inst.anon, app, wrong, { code_verifier: pkcePair().verifier });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(INVALID_GRANT);

    const none = await getCode({ code_challenge: challenge, code_challenge_method: 'S256' });
    expect((await exchangeCode(inst.anon, app, none)).body.error).toBe('invalid_grant');

    // A verifier for a code issued without a challenge is refused too (downgrade).
    const plain = await getCode();
    expect((await exchangeCode(inst.anon, app, plain, { code_verifier: verifier })).body.error).toBe('invalid_grant');
  });

  it('authenticates the client by body or HTTP Basic; a wrong secret or unknown client is 401 invalid_client', async () => {
    const code = await getCode();
    const wrong = await exchangeCode(inst.anon, app, code, { client_secret: 'wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    expect(wrong.body.error_description).toMatch(/^Client authentication failed/);
    const unknown = await exchangeCode(inst.anon, app, code, { client_id: 'unknown' });
    expect(unknown.status).toBe(401);

    const basicWrong = await form(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
      { authorization: `Basic ${Buffer.from(`${app.client_id}:nope`).toString('base64')}` },
    );
    expect(basicWrong.status).toBe(401);
    expect(basicWrong.headers.get('www-authenticate')).toMatch(/^Basic/);

    // The code was not used up by the failed attempts.
    const basic = await form(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
      { authorization: `Basic ${Buffer.from(`${encodeURIComponent(app.client_id)}:${encodeURIComponent(app.client_secret)}`).toString('base64')}` },
    );
    expect(basic.status).toBe(200);
  });

  it('refuses a reused code and revokes the token it gave', async () => {
    const code = await getCode();
    const first = await exchangeCode(inst.anon, app, code);
    expect(first.status).toBe(200);
    expect((await verify(first.body.access_token)).status).toBe(200);
    const second = await exchangeCode(inst.anon, app, code);
    expect(second.status).toBe(400);
    expect(second.body).toEqual(INVALID_GRANT);
    expect((await verify(first.body.access_token)).status).toBe(401);
  });

  it('refuses a code after ten minutes', async () => {
    const code = await getCode();
    setClockTo(now() + 10 * 60 * 1000 + 1000);
    const res = await exchangeCode(inst.anon, app, code);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('accepts a code just before it expires', async () => {
    const code = await getCode();
    setClockTo(now() + 9 * 60 * 1000);
    expect((await exchangeCode(inst.anon, app, code)).status).toBe(200);
  });

  it('refuses a code with another redirect_uri, or presented by another client', async () => {
    const other = await registerApp(inst.anon);
    const code = await getCode();
    expect((await exchangeCode(inst.anon, app, code, { redirect_uri: 'https://client.example/other' })).body).toEqual(INVALID_GRANT);
    expect((await exchangeCode(inst.anon, other, code)).body).toEqual(INVALID_GRANT);
    expect((await exchangeCode(inst.anon, app, 'not-a-code')).body).toEqual(INVALID_GRANT);
    const missing = await form({ grant_type: 'authorization_code', client_id: app.client_id, client_secret: app.client_secret, redirect_uri: REDIRECT });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
  });

  it('rotates refresh tokens: new access and refresh tokens, the old access token revoked', async () => {
    const first = await userToken(inst, app, alice, 'read write');
    const refreshed = await form({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: app.client_id, client_secret: app.client_secret });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('read write');
    expect(refreshed.body.access_token).not.toBe(first.access_token);
    expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);
    expect((await verify(first.access_token)).status).toBe(401);
    expect((await verify(refreshed.body.access_token)).status).toBe(200);

    // Narrowing works; widening does not.
    const wider = await form({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, scope: 'read write push', client_id: app.client_id, client_secret: app.client_secret });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe('invalid_scope');
    const narrower = await form({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, scope: 'read:statuses', client_id: app.client_id, client_secret: app.client_secret });
    expect(narrower.status).toBe(200);
    expect(narrower.body.scope).toBe('read:statuses');

    // A rotated refresh token coming back means a copy leaked: the whole family is revoked.
    const replay = await form({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: app.client_id, client_secret: app.client_secret });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await verify(narrower.body.access_token)).status).toBe(401);
  });

  it('refuses a refresh token presented by another client', async () => {
    const other = await registerApp(inst.anon);
    const token = await userToken(inst, app, alice);
    const res = await form({ grant_type: 'refresh_token', refresh_token: token.refresh_token, client_id: other.client_id, client_secret: other.client_secret });
    expect(res.body).toEqual(INVALID_GRANT);
    expect((await verify(token.access_token)).status).toBe(200);
  });

  it('issues app-only tokens for client_credentials, within the app scopes, without refresh token', async () => {
    const base = { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret };
    const res = await form(base);
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('read');
    expect(res.body.refresh_token).toBeUndefined();
    expect((await verify(res.body.access_token)).body.name).toBe('Test client');
    // An app token is not a user: user routes answer 422 as Mastodon does.
    const me = await inst.anon.get('/api/v1/accounts/verify_credentials', { token: res.body.access_token, skipSchema: true });
    expect(me.status).toBe(422);
    expect((await form({ ...base, scope: 'write:statuses push' })).body.scope).toBe('write:statuses push');
    const outside = await form({ ...base, scope: 'admin:read' });
    expect(outside.status).toBe(400);
    expect(outside.body).toEqual({ error: 'invalid_scope', error_description: 'The requested scope is invalid, unknown, or malformed.' });
  });

  it.each([
    [{ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'x' }, 400, 'unsupported_grant_type'],
    [{ grant_type: 'implicit' }, 400, 'unsupported_grant_type'],
    [{}, 400, 'invalid_request'],
  ])('answers %j with %i %s', async (body, status, error) => {
    const res = await form({ ...body, client_id: app.client_id, client_secret: app.client_secret });
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(error);
    expect(typeof res.body.error_description).toBe('string');
  });

  it('accepts a JSON body too', async () => {
    const res = await inst.anon.post('/oauth/token', { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret, scope: 'read' });
    expect(res.status).toBe(200);
  });

  it('revokes a token (200 {}), after which the API answers 401; unknown tokens are fine too', async () => {
    const token = await userToken(inst, app, alice);
    const revoke = (body: Record<string, string>) => inst.anon.post('/oauth/revoke', undefined, { form: body });
    const res = await revoke({ token: token.access_token, client_id: app.client_id, client_secret: app.client_secret });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await verify(token.access_token)).status).toBe(401);
    expect((await revoke({ token: token.access_token, client_id: app.client_id, client_secret: app.client_secret })).status).toBe(200);
    expect((await revoke({ token: 'never-issued', client_id: app.client_id, client_secret: app.client_secret })).body).toEqual({});
    // Revoking by refresh token ends its access token too.
    const second = await userToken(inst, app, alice);
    expect((await revoke({ token: second.refresh_token, client_id: app.client_id, client_secret: app.client_secret })).status).toBe(200);
    expect((await verify(second.access_token)).status).toBe(401);
  });

  it('refuses to revoke with bad client credentials or another app’s token', async () => {
    const token = await userToken(inst, app, alice);
    const other = await registerApp(inst.anon);
    const wrong = await inst.anon.post('/oauth/revoke', undefined, { form: { token: token.access_token, client_id: app.client_id, client_secret: 'x' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const foreign = await inst.anon.post('/oauth/revoke', undefined, { form: { token: token.access_token, client_id: other.client_id, client_secret: other.client_secret } });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({ error: 'unauthorized_client', error_description: 'You are not authorized to revoke this token' });
    expect((await verify(token.access_token)).status).toBe(200);
  });
});

describe('discovery, userinfo and scopes', () => {
  const env = useInstance(['alice']);

  it('publishes the authorization server metadata', async () => {
    const { inst } = env();
    const res = await inst.anon.get('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.body).toMatchObject({
      issuer: `${inst.url}/`,
      authorization_endpoint: `${inst.url}/oauth/authorize`,
      token_endpoint: `${inst.url}/oauth/token`,
      revocation_endpoint: `${inst.url}/oauth/revoke`,
      userinfo_endpoint: `${inst.url}/oauth/userinfo`,
      app_registration_endpoint: `${inst.url}/api/v1/apps`,
      service_documentation: 'https://docs.joinmastodon.org/',
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    });
    expect(res.body.scopes_supported).toEqual([...ALL_SCOPES]);
    expect(res.body.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'client_credentials']));
    expect(res.body.grant_types_supported).not.toContain('password');
  });

  it('answers /oauth/userinfo (GET and POST) for a profile token with OIDC claims', async () => {
    const { inst, users: { alice } } = env();
    const token = inst.tokenFor(alice, 'profile');
    for (const method of ['GET', 'POST']) {
      const res = await inst.anon.request(method, '/oauth/userinfo', { token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        iss: `${inst.url}/`,
        sub: `${inst.url}/users/alice`,
        name: 'alice',
        preferred_username: 'alice',
        profile: `${inst.url}/@alice`,
        picture: `${inst.url}/avatars/original/missing.png`,
      });
    }
    // Only the profile scope: read (or read:accounts) is not enough, as on Mastodon.
    expect((await inst.anon.get('/oauth/userinfo', { token: inst.tokenFor(alice, 'read') })).status).toBe(403);
  });

  it('answers /oauth/userinfo with 401 without a token and 403 without the profile scope', async () => {
    const { inst, users: { alice } } = env();
    expect((await inst.anon.get('/oauth/userinfo')).status).toBe(401);
    const res = await inst.anon.get('/oauth/userinfo', { token: inst.tokenFor(alice, 'read:statuses write') });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is outside the authorized scopes' });
  });

  it('refuses a read-only token on every route that needs a write scope (403)', async () => {
    const { inst, users: { alice } } = env();
    const token = inst.tokenFor(alice, 'read');
    const writeRoutes = inst.app.routes.filter((r) => r.auth !== 'none' && r.scopes.length > 0 && r.scopes.every((s) => s.startsWith('write') || s.startsWith('admin:write')));
    for (const route of writeRoutes) {
      const path = route.path.replace(/:(\w+)/g, '1');
      const body = route.method === 'get' ? {} : { json: {} };
      const res = await inst.anon.request(route.method.toUpperCase(), path, { token, ...body, skipSchema: true });
      expect(res.status, `${route.method} ${route.path}`).toBe(403);
    }
  });
});
