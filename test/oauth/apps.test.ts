import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { OOB, REDIRECT, registerApp, userToken } from './flow.js';

describe('POST /api/v1/apps', () => {
  let inst: TestInstance;
  const appCount = () => inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM oauth_applications').get()?.n ?? 0;

  beforeAll(async () => {
    inst = await startInstance();
  });
  afterAll(async () => {
    await inst.close();
  });

  it('registers an app from JSON with a list of redirect URIs and answers a CredentialApplication', async () => {
    const res = await inst.anon.post('/api/v1/apps', {
      client_name: 'Test Application',
      redirect_uris: ['https://app.example/callback', 'https://app.example/register'],
      scopes: 'read write push',
      website: 'https://app.example',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Test Application',
      website: 'https://app.example',
      scopes: ['read', 'write', 'push'],
      redirect_uri: 'https://app.example/callback\nhttps://app.example/register',
      redirect_uris: ['https://app.example/callback', 'https://app.example/register'],
      client_secret_expires_at: 0,
    });
    expect(res.body.id).toMatch(/^\d+$/);
    expect(res.body.client_id).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(res.body.client_secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    // An uncompressed P-256 point, base64url: 65 bytes.
    expect(Buffer.from(res.body.vapid_key, 'base64url')).toHaveLength(65);
  });

  it('defaults scopes to read and website to null, and splits newline-separated URIs in a form body', async () => {
    const res = await inst.anon.post('/api/v1/apps', undefined, {
      form: { client_name: 'Form app', redirect_uris: `${REDIRECT}\n${OOB}` },
    });
    expect(res.status).toBe(200);
    expect(res.body.scopes).toEqual(['read']);
    expect(res.body.website).toBeNull();
    expect(res.body.redirect_uris).toEqual([REDIRECT, OOB]);
  });

  it('accepts redirect_uris[] arrays, oob and custom app schemes', async () => {
    const res = await inst.anon.post('/api/v1/apps', undefined, {
      form: { client_name: 'Mobile', 'redirect_uris[]': ['com.example.app:/oauth', OOB], scopes: 'profile read:statuses' },
    });
    expect(res.status).toBe(200);
    expect(res.body.redirect_uris).toEqual(['com.example.app:/oauth', OOB]);
    expect(res.body.scopes).toEqual(['profile', 'read:statuses']);
  });

  it('gives every app its own credentials and the same vapid key', async () => {
    const a = await registerApp(inst.anon);
    const b = await registerApp(inst.anon);
    expect(a.client_id).not.toBe(b.client_id);
    expect(a.client_secret).not.toBe(b.client_secret);
    const stored = inst.deps.db.query<{ client_secret: string }>('SELECT client_secret FROM oauth_applications WHERE client_id = ?').get(a.client_id);
    expect(stored?.client_secret).not.toBe(a.client_secret); // kept only as a hash
    expect((a as unknown as { vapid_key: string }).vapid_key).toBe((b as unknown as { vapid_key: string }).vapid_key);
  });

  it.each([
    [{ redirect_uris: REDIRECT }, "Validation failed: Application name can't be blank"],
    [{ client_name: 'x'.repeat(61), redirect_uris: REDIRECT }, 'Validation failed: Application name is too long (maximum is 60 characters)'],
    [{ client_name: 'App' }, "Validation failed: Redirect URI can't be blank"],
    [{ client_name: 'App', redirect_uris: '/callback' }, 'Validation failed: Redirect URI must be an absolute URI.'],
    [{ client_name: 'App', redirect_uris: 'https://app.example/cb#frag' }, 'Validation failed: Redirect URI cannot contain a fragment.'],
    [{ client_name: 'App', redirect_uris: 'javascript:alert(1)' }, 'Validation failed: Redirect URI must be a valid URI.'],
    [{ client_name: 'App', redirect_uris: REDIRECT, scopes: 'read sudo' }, "Validation failed: Scopes doesn't match configured on the server."],
    [{ client_name: 'App', redirect_uris: REDIRECT, scopes: 'admin' }, "Validation failed: Scopes doesn't match configured on the server."],
    [{ client_name: 'App', redirect_uris: REDIRECT, website: 'not a url' }, 'Validation failed: Application website is invalid'],
  ])('refuses %j with 422 and writes nothing', async (body, message) => {
    const before = appCount();
    const res = await inst.anon.post('/api/v1/apps', body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: message, details: {} });
    expect(appCount()).toBe(before);
  });

  it('answers 422 for parameters of the wrong type', async () => {
    const res = await inst.anon.post('/api/v1/apps', { client_name: { x: 1 }, redirect_uris: REDIRECT });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/^Validation failed/);
  });
});

describe('GET /api/v1/apps/verify_credentials', () => {
  const env = useInstance(['alice']);

  it('answers 401 without a token or with a bad one', async () => {
    const { inst } = env();
    expect((await inst.anon.get('/api/v1/apps/verify_credentials')).status).toBe(401);
    const bad = await inst.anon.get('/api/v1/apps/verify_credentials', { token: 'nope' });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ error: 'The access token is invalid' });
  });

  it('shows the app of an app-only (client_credentials) token, without its secret', async () => {
    const { inst } = env();
    const app = await registerApp(inst.anon, { name: 'Verifier', scopes: 'read write' });
    const tok = await inst.anon.post('/oauth/token', undefined, {
      form: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret, redirect_uri: REDIRECT, scope: 'write' },
    });
    expect(tok.status).toBe(200);
    const res = await inst.anon.get('/api/v1/apps/verify_credentials', { token: tok.body.access_token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: app.id, name: 'Verifier', website: 'https://client.example', scopes: ['read', 'write'], redirect_uris: [REDIRECT], redirect_uri: REDIRECT });
    expect(typeof res.body.vapid_key).toBe('string');
    expect(res.body.client_secret).toBeUndefined();
    expect(res.body.client_id).toBeUndefined();
  });

  it('shows the app of a user token, whatever its scopes', async () => {
    const { inst, users: { alice } } = env();
    const app = await registerApp(inst.anon, { name: 'User app', scopes: 'profile read' });
    const token = await userToken(inst, app, alice, 'profile');
    const res = await inst.anon.get('/api/v1/apps/verify_credentials', { token: token.access_token });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('User app');
  });

  it('answers 404 for a token that belongs to no application', async () => {
    const { users: { alice } } = env();
    const res = await alice.client.get('/api/v1/apps/verify_credentials');
    expect(res.status).toBe(404);
  });
});
