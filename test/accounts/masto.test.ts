import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';

describe('accounts with the masto client library', () => {
  const env = useInstance([], { registrations: 'open' });

  it('signs up, reads and edits the profile, looks accounts up, reads preferences', async () => {
    const { inst } = env();
    const oob = 'urn:ietf:wg:oauth:2.0:oob';
    const app = await createRestAPIClient({ url: inst.url }).v1.apps.create({ clientName: 'masto sign-up', redirectUris: oob, scopes: 'read write follow' });
    const appToken = await createOAuthAPIClient({ url: inst.url }).token.create({
      grantType: 'client_credentials',
      clientId: app.clientId ?? '',
      clientSecret: app.clientSecret ?? '',
      redirectUri: oob,
      scope: 'read write follow',
    });

    const signUp = createRestAPIClient({ url: inst.url, accessToken: appToken.accessToken });
    const token = await signUp.v1.accounts.create({ username: 'masto_user', email: 'masto@example.test', password: 'a long password', agreement: true, locale: 'en' });
    expect(token.scope).toBe('read write follow');

    const me = createRestAPIClient({ url: inst.url, accessToken: token.accessToken });
    const account = await me.v1.accounts.verifyCredentials();
    expect(account.acct).toBe('masto_user');
    expect(account.source.privacy).toBe('public');

    const updated = await me.v1.accounts.updateCredentials({
      displayName: 'Masto User',
      note: 'Hi https://masto.example',
      locked: true,
      bot: false,
      fieldsAttributes: [{ name: 'Home', value: 'https://masto.example' }],
      source: { privacy: 'private', sensitive: true, language: 'sv' },
    });
    expect(updated.displayName).toBe('Masto User');
    expect(updated.locked).toBe(true);
    expect(updated.note).toContain('href="https://masto.example"');
    expect(updated.fields.map((f) => f.name)).toEqual(['Home']);
    expect(updated.source.privacy).toBe('private');
    expect(updated.source.language).toBe('sv');

    const found = await me.v1.accounts.lookup({ acct: 'masto_user' });
    expect(found.id).toBe(account.id);
    const fetched = await me.v1.accounts.$select(account.id).fetch();
    expect(fetched.displayName).toBe('Masto User');
    const several = await me.v1.accounts.fetch({ id: [account.id] });
    expect(several.map((a) => a.id)).toEqual([account.id]);

    const prefs = await me.v1.preferences.fetch();
    expect(prefs['posting:default:visibility']).toBe('private');
    expect(prefs['posting:default:language']).toBe('sv');
  });
});
