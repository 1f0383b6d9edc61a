import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';

describe('e-mail confirmation, identity proofs and async refreshes', () => {
  const env = useInstance(['alice', 'bob']);

  it('has no confirmation to resend: every account is confirmed when it is made', async () => {
    const { inst, users } = env();
    expect((await users.alice.client.get('/api/v1/emails/check_confirmation')).body).toBe(true);
    const res = await users.alice.client.post('/api/v1/emails/confirmations', { email: 'new@example.test' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'This method is only available while the e-mail is awaiting confirmation' });
    // The address did not change.
    expect(inst.deps.db.query<{ email: string }>('SELECT email FROM users WHERE account_id = ?').get(users.alice.accountId)?.email).toBe('alice@example.test');
    // A freshly signed-up account is no different.
    const app = await inst.anon.post('/api/v1/apps', { client_name: 'signup', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write' });
    const appToken = await inst.anon.post('/oauth/token', undefined, {
      form: { grant_type: 'client_credentials', client_id: app.body.client_id, client_secret: app.body.client_secret, scope: 'read write' },
    });
    const signUp = await inst.anon.post('/api/v1/accounts', { username: 'newbie', email: 'newbie@example.test', password: 'a long password', agreement: true, locale: 'en' }, { token: appToken.body.access_token });
    expect(signUp.status, signUp.text).toBe(200);
    const again = await inst.anon.post('/api/v1/emails/confirmations', {}, { token: signUp.body.access_token });
    expect(again.status).toBe(403);
    expect((await inst.anon.post('/api/v1/emails/confirmations', {})).status).toBe(401);
    expect((await inst.anon.post('/api/v1/emails/confirmations', {}, { token: inst.tokenFor(users.alice, 'read') })).status).toBe(403);
  });

  it('answers identity proofs with an empty list, as Mastodon does since 3.5', async () => {
    const { inst, users } = env();
    const res = await users.alice.client.get(`/api/v1/accounts/${users.bob.accountId}/identity_proofs`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect((await users.alice.client.get('/api/v1/accounts/99999999/identity_proofs')).status).toBe(404);
    expect((await inst.anon.get(`/api/v1/accounts/${users.bob.accountId}/identity_proofs`)).status).toBe(401);
  });

  it('knows no async refresh', async () => {
    const { inst, users } = env();
    const res = await users.alice.client.get('/api/v1_alpha/async_refreshes/ImNvbnRleHQ6MSJ9');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Not Found' });
    expect((await inst.anon.get('/api/v1_alpha/async_refreshes/x')).status).toBe(401);
  });
});
