import { describe, expect, it } from 'vitest';
import { updateUser } from '../../api/db/repos/users.js';
import { useInstance } from '../helpers/fixtures.js';
import type { TestClient } from '../helpers/client.js';
import { registerApp, type RegisteredApp } from './flow.js';

const INVALID_GRANT = {
  error: 'invalid_grant',
  error_description:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
};

/** The request toot's login_cli sends: the password grant with the e-mail address as username. */
function passwordGrant(client: TestClient, app: RegisteredApp, username: string, password: string, extra: Record<string, string> = {}) {
  return client.post('/oauth/token', undefined, {
    form: { grant_type: 'password', client_id: app.client_id, client_secret: app.client_secret, username, password, scope: 'read write follow', ...extra },
  });
}

describe('POST /oauth/token with grant_type=password (command-line clients)', () => {
  const env = useInstance(['alice', 'pending', 'unconfirmed', 'suspended', 'disabled']);

  it('gives a token for the right e-mail address and password, with the scopes asked, that works at once', async () => {
    const { inst, users: { alice } } = env();
    const app = await registerApp(inst.anon, { name: 'toot', scopes: 'read write follow' });
    const res = await passwordGrant(inst.anon, app, 'alice@example.test', alice.password);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ token_type: 'Bearer', scope: 'read write follow' });
    expect(typeof res.body.access_token).toBe('string');
    expect(typeof res.body.refresh_token).toBe('string');
    expect(Math.abs(res.body.created_at - Date.now() / 1000)).toBeLessThan(60);
    const me = await inst.anon.get('/api/v1/accounts/verify_credentials', { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.username).toBe('alice');
    // The token belongs to the client that asked for it.
    const client = await inst.anon.get('/api/v1/apps/verify_credentials', { token: res.body.access_token });
    expect(client.status).toBe(200);
    expect(client.body.name).toBe('toot');
  });

  it('logs in as toot’s login_cli does: instance, app (JSON), password grant (form, no redirect), then verify_credentials', async () => {
    const { inst, users: { alice } } = env();
    expect((await inst.anon.get('/api/v1/instance')).status).toBe(200);
    const app = await inst.anon.post('/api/v1/apps', {
      client_name: 'toot - a Mastodon CLI client',
      redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
      scopes: 'read write follow',
      website: 'https://github.com/ihabunek/toot',
    });
    expect(app.status, app.text).toBe(200);
    const login = (password: string) =>
      inst.anon.post('/oauth/token', undefined, {
        form: { grant_type: 'password', client_id: app.body.client_id, client_secret: app.body.client_secret, username: 'alice@example.test', password, scope: 'read write follow' },
        skipSchema: true,
      });
    // toot takes a redirect for a failed login, and any other error as one too: a wrong password is a plain 400.
    const wrong = await login('not-her-password');
    expect(wrong.status).toBe(400);
    expect(wrong.headers.get('location')).toBeNull();
    expect(wrong.body.error).toBe('invalid_grant');
    const res = await login(alice.password);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ token_type: 'Bearer', scope: 'read write follow' });
    const me = await inst.anon.get('/api/v1/accounts/verify_credentials', { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: 'alice', acct: 'alice' });
    // And toot can post with it.
    const posted = await inst.anon.post('/api/v1/statuses', { status: 'Hello from the command line', visibility: 'public' }, { token: res.body.access_token, headers: { 'Idempotency-Key': 'toot-1' } });
    expect(posted.status, posted.text).toBe(200);
  });

  it('takes the username as login too, and the app’s default scope (read) when none is asked', async () => {
    const { inst, users: { alice } } = env();
    const app = await registerApp(inst.anon, { scopes: 'read write' });
    const res = await inst.anon.post('/oauth/token', undefined, {
      form: { grant_type: 'password', client_id: app.client_id, client_secret: app.client_secret, username: 'alice', password: alice.password },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.scope).toBe('read');
  });

  it('refuses a wrong password and an unknown login alike (400 invalid_grant)', async () => {
    const { inst, users: { alice } } = env();
    const app = await registerApp(inst.anon);
    for (const [login, password] of [
      ['alice@example.test', 'not-the-password'],
      ['nobody@example.test', alice.password],
      ['alice@example.test', ''],
      ['', alice.password],
    ] as const) {
      const res = await passwordGrant(inst.anon, app, login, password);
      expect(res.status, `${login} / ${password}`).toBe(400);
      expect(res.body).toEqual(INVALID_GRANT);
    }
  });

  it('refuses an unknown client or a wrong secret (401 invalid_client) before looking at the password', async () => {
    const { inst, users: { alice } } = env();
    const app = await registerApp(inst.anon);
    const unknown = await passwordGrant(inst.anon, { ...app, client_id: 'no-such-client' }, 'alice@example.test', alice.password);
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_client');
    const wrong = await passwordGrant(inst.anon, { ...app, client_secret: 'wrong' }, 'alice@example.test', alice.password);
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
  });

  it('refuses scopes beyond the app’s (400 invalid_scope), and unknown scopes', async () => {
    const { inst, users: { alice } } = env();
    const app = await registerApp(inst.anon, { scopes: 'read' });
    for (const scope of ['read write', 'admin:read', 'read nonsense']) {
      const res = await passwordGrant(inst.anon, app, 'alice@example.test', alice.password, { scope });
      expect(res.status, scope).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_scope', error_description: 'The requested scope is invalid, unknown, or malformed.' });
    }
    // A granular scope within the app's is fine.
    expect((await passwordGrant(inst.anon, app, 'alice@example.test', alice.password, { scope: 'read:statuses' })).status).toBe(200);
  });

  it('gives a user awaiting approval or e-mail confirmation a token, and the methods that need a user say why not (403), as Mastodon', async () => {
    const { inst, users } = env();
    updateUser(inst.deps.db, users.pending.userId, { approved: 0 });
    updateUser(inst.deps.db, users.unconfirmed.userId, { confirmed_at: null });
    const app = await registerApp(inst.anon);
    for (const [name, error] of [
      ['pending', 'Your login is currently pending approval'],
      ['unconfirmed', 'Your login is missing a confirmed e-mail address'],
    ] as const) {
      const res = await passwordGrant(inst.anon, app, `${name}@example.test`, users[name].password);
      expect(res.status, res.text).toBe(200);
      const me = await inst.anon.get('/api/v1/accounts/verify_credentials', { token: res.body.access_token });
      expect(me.status).toBe(403);
      expect(me.body).toEqual({ error });
      // What needs no user still answers.
      expect((await inst.anon.get('/api/v1/apps/verify_credentials', { token: res.body.access_token })).status).toBe(200);
    }
  });

  it('gives a suspended or disabled user no token (400 invalid_grant), whose token would be refused anyway', async () => {
    const { inst, users } = env();
    inst.deps.db.query('UPDATE accounts SET suspended_at = @at WHERE id = @id').run({ id: users.suspended.accountId, at: Date.now() });
    updateUser(inst.deps.db, users.disabled.userId, { disabled: 1 });
    const app = await registerApp(inst.anon);
    for (const name of ['suspended', 'disabled'] as const) {
      const res = await passwordGrant(inst.anon, app, `${name}@example.test`, users[name].password);
      expect(res.status, name).toBe(400);
      expect(res.body).toEqual(INVALID_GRANT);
    }
  });

  it('is accepted but not advertised in the OAuth metadata (Mastodon recommends against it)', async () => {
    const { inst } = env();
    const res = await inst.anon.get('/.well-known/oauth-authorization-server');
    expect(res.body.grant_types_supported).not.toContain('password');
  });
});
