import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../helpers/browser.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { authorizeInBrowser, authorizePath, codeFromRedirect, REDIRECT, type RegisteredApp } from '../oauth/flow.js';

/**
 * Issue 2's end-to-end client flow, as a real Mastodon client performs it with masto.js: register
 * an app, send the person through the authorize form in a browser, exchange the code, then use the
 * token for verify_credentials, update_credentials and the instance.
 */
describe('a Mastodon client logs in and uses the account', () => {
  let inst: TestInstance;
  let kim: TestUser;
  beforeAll(async () => {
    inst = await startInstance();
    kim = await inst.createUser('kim', { role: 'owner' });
  });
  afterAll(async () => {
    await inst.close();
  });

  it('registers, authorizes in the browser, exchanges the code and calls the API', async () => {
    const app = await createRestAPIClient({ url: inst.url }).v1.apps.create({
      clientName: 'Elk-like client',
      redirectUris: REDIRECT,
      scopes: 'read write follow push',
      website: 'https://client.example',
    });
    const registered: RegisteredApp = {
      id: '',
      name: app.name,
      client_id: app.clientId ?? '',
      client_secret: app.clientSecret ?? '',
      redirect_uris: [REDIRECT],
      scopes: ['read', 'write', 'follow', 'push'],
    };
    const page = await authorizeInBrowser(new Browser(inst.url), authorizePath(registered, { scope: 'read write follow push', state: 'xyz' }), kim);
    const { code, state } = codeFromRedirect(page);
    expect(state).toBe('xyz');
    const token = await createOAuthAPIClient({ url: inst.url }).token.create({
      grantType: 'authorization_code',
      clientId: registered.client_id,
      clientSecret: registered.client_secret,
      redirectUri: REDIRECT,
      code: code ?? '',
    });
    const masto = createRestAPIClient({ url: inst.url, accessToken: token.accessToken });

    const me = await masto.v1.accounts.verifyCredentials();
    expect(me.username).toBe('kim');
    expect(me.source.privacy).toBe('public');

    const updated = await masto.v1.accounts.updateCredentials({ displayName: 'Kim at home', note: 'Hello from my own computer' });
    expect(updated.displayName).toBe('Kim at home');
    expect(updated.note).toContain('Hello from my own computer');
    expect((await masto.v1.accounts.verifyCredentials()).source.note).toBe('Hello from my own computer');

    const v1 = await masto.v1.instance.fetch();
    expect(v1.version).toMatch(/^4\.\d+\.\d+ \(compatible; Hearth \d+\.\d+\.\d+\)$/);
    const v2 = await masto.v2.instance.fetch();
    expect(v2.contact.account?.username).toBe('kim');
  });

  it('a token without write is refused update_credentials with 403', async () => {
    const readOnly = createRestAPIClient({ url: inst.url, accessToken: inst.tokenFor(kim, 'read') });
    expect((await readOnly.v1.accounts.verifyCredentials()).username).toBe('kim');
    await expect(readOnly.v1.accounts.updateCredentials({ displayName: 'nope' })).rejects.toMatchObject({ statusCode: 403 });
    const res = await inst.anon.get(`/api/v1/accounts/${kim.accountId}`);
    expect(res.body.display_name).not.toBe('nope');
  });
});
