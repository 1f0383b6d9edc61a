import { describe, expect, it } from 'vitest';
import { revokeToken } from '../../api/db/repos/tokens.js';
import { issueToken } from '../../api/core/oauth/tokens.js';
import { useInstance } from '../helpers/fixtures.js';
import { registerApp } from './flow.js';

/** The challenge Doorkeeper (Mastodon's OAuth library) sends with a refused token. */
const challenge = (description: string) => `Bearer realm="Doorkeeper", error="invalid_token", error_description="${description}"`;

describe('bearer tokens as Mastodon checks them', () => {
  const env = useInstance(['alice', 'bob']);

  it('answers 401 with a WWW-Authenticate challenge when a route needs a token and none is given', async () => {
    const { inst } = env();
    for (const path of ['/api/v1/accounts/verify_credentials', '/api/v1/timelines/home', '/api/v1/apps/verify_credentials', '/oauth/userinfo']) {
      const res = await inst.anon.get(path);
      expect(res.status, path).toBe(401);
      expect(res.body).toEqual({ error: 'The access token is invalid' });
      expect(res.headers.get('www-authenticate'), path).toBe(challenge('The access token is invalid'));
    }
  });

  it('says whether a token is unknown, revoked or expired, on routes that need one and on public ones', async () => {
    const { inst, users: { alice } } = env();
    const revoked = issueToken(inst.deps, { applicationId: null, userId: alice.userId, scopes: ['read'] });
    revokeToken(inst.deps.db, revoked.row.id, Date.now());
    const expired = issueToken(inst.deps, { applicationId: null, userId: alice.userId, scopes: ['read'], expiresInMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (const [token, description] of [
      ['not-a-token', 'The access token is invalid'],
      [revoked.accessToken, 'The access token was revoked'],
      [expired.accessToken, 'The access token expired'],
    ] as const) {
      for (const path of ['/api/v1/accounts/verify_credentials', '/api/v1/instance']) {
        const res = await inst.anon.get(path, { token });
        expect(res.status, `${path} ${description}`).toBe(401);
        expect(res.body).toEqual({ error: description });
        expect(res.headers.get('www-authenticate')).toBe(challenge(description));
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
    }
  });

  it('answers 403 without a challenge for a token without the scope; other 401s carry none either', async () => {
    const { inst, users: { alice } } = env();
    const res = await inst.anon.get('/api/v1/timelines/home', { token: inst.tokenFor(alice, 'write') });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This action is outside the authorized scopes' });
    expect(res.headers.get('www-authenticate')).toBeNull();
    const search = await inst.anon.get('/api/v2/search?q=alice&resolve=true');
    expect(search.status).toBe(401);
    expect(search.headers.get('www-authenticate')).toBeNull();
  });

  it('needs a write scope to dismiss a follow suggestion (a read token gets 403)', async () => {
    const { inst, users: { alice, bob } } = env();
    const path = `/api/v1/suggestions/${bob.accountId}`;
    const read = await inst.anon.delete(path, { token: inst.tokenFor(alice, 'read') });
    expect(read.status).toBe(403);
    expect(read.body).toEqual({ error: 'This action is outside the authorized scopes' });
    expect((await inst.anon.delete(path, { token: inst.tokenFor(alice, 'read:accounts') })).status).toBe(403);
    expect((await inst.anon.delete(path, { token: inst.tokenFor(alice, 'write:accounts') })).status).toBe(200);
    expect((await inst.anon.delete(path, { token: inst.tokenFor(alice, 'write') })).status).toBe(200);
  });

  it('needs the profile scope for /oauth/userinfo: read:accounts or read gets 403', async () => {
    const { inst, users: { alice } } = env();
    for (const scopes of ['read:accounts', 'read', 'read write follow push']) {
      const res = await inst.anon.get('/oauth/userinfo', { token: inst.tokenFor(alice, scopes) });
      expect(res.status, scopes).toBe(403);
      expect(res.body).toEqual({ error: 'This action is outside the authorized scopes' });
    }
    expect((await inst.anon.get('/oauth/userinfo', { token: inst.tokenFor(alice, 'profile') })).status).toBe(200);
    expect((await inst.anon.post('/oauth/userinfo', undefined, { token: inst.tokenFor(alice, 'profile read') })).status).toBe(200);
    // verify_credentials takes profile as well as read:accounts.
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token: inst.tokenFor(alice, 'profile') })).status).toBe(200);
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token: inst.tokenFor(alice, 'read:accounts') })).status).toBe(200);
  });

  it('refuses sign-up with a user’s token in Mastodon’s words (403), and takes an app’s', async () => {
    const { inst, users: { alice } } = env();
    const form = { username: 'newcomer', email: 'newcomer@example.test', password: 'newcomer-password-1', agreement: 'true', locale: 'en' };
    const res = await inst.anon.post('/api/v1/accounts', form, { token: alice.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This method requires an client credentials authentication' });
    const app = await registerApp(inst.anon, { scopes: 'read write' });
    const appToken = await inst.anon.post('/oauth/token', undefined, {
      form: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret, scope: 'write' },
    });
    expect(appToken.status).toBe(200);
    const created = await inst.anon.post('/api/v1/accounts', form, { token: appToken.body.access_token });
    expect(created.status, created.text).toBe(200);
  });
});
