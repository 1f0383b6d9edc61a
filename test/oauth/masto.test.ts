import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { describe, expect, it } from 'vitest';
import { Browser } from '../helpers/browser.js';
import { useInstance } from '../helpers/fixtures.js';
import { authorizeInBrowser, authorizePath, OOB, type RegisteredApp } from './flow.js';

describe('OAuth with the masto client library', () => {
  const env = useInstance(['alice']);

  it('registers an app, exchanges a code, verifies the app and revokes the token', async () => {
    const { inst, users: { alice } } = env();
    const anonymous = createRestAPIClient({ url: inst.url });
    const app = await anonymous.v1.apps.create({ clientName: 'masto test', redirectUris: OOB, scopes: 'read write' });
    expect(app.name).toBe('masto test');
    expect(app.clientId).toBeTruthy();
    expect(app.clientSecret).toBeTruthy();
    expect(app.redirectUris).toEqual([OOB]);

    // The user approves in the browser and copies the code from the page.
    const registered = { client_id: app.clientId ?? '', redirect_uris: [OOB] } as RegisteredApp;
    const page = await authorizeInBrowser(new Browser(inst.url), authorizePath(registered, { scope: 'read write' }), alice);
    const code = /id="authorization-code">([^<]+)</.exec(page.text)?.[1] ?? '';
    expect(code).not.toBe('');

    const oauth = createOAuthAPIClient({ url: inst.url });
    const token = await oauth.token.create({
      grantType: 'authorization_code',
      clientId: app.clientId ?? '',
      clientSecret: app.clientSecret ?? '',
      redirectUri: OOB,
      code,
      scope: 'read write',
    });
    expect(token.tokenType).toBe('Bearer');
    expect(token.scope).toBe('read write');

    const rest = createRestAPIClient({ url: inst.url, accessToken: token.accessToken });
    const verified = await rest.v1.apps.verifyCredentials();
    expect(verified.name).toBe('masto test');
    expect(verified.scopes).toEqual(['read', 'write']);

    await oauth.revoke({ clientId: app.clientId ?? '', clientSecret: app.clientSecret ?? '', token: token.accessToken });
    await expect(rest.v1.apps.verifyCredentials()).rejects.toMatchObject({ statusCode: 401 });
  });

  it('gets an app token with client_credentials', async () => {
    const { inst } = env();
    const app = await createRestAPIClient({ url: inst.url }).v1.apps.create({ clientName: 'app only', redirectUris: OOB, scopes: 'read' });
    const token = await createOAuthAPIClient({ url: inst.url }).token.create({
      grantType: 'client_credentials',
      clientId: app.clientId ?? '',
      clientSecret: app.clientSecret ?? '',
      redirectUri: OOB,
    });
    const verified = await createRestAPIClient({ url: inst.url, accessToken: token.accessToken }).v1.apps.verifyCredentials();
    expect(verified.name).toBe('app only');
  });
});
