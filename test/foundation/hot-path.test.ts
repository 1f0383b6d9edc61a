import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasePath } from '../../api/app.js';
import { openDatabase, type Db } from '../../api/db/connection.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';

/**
 * The request hot path: route lookup with Express's matching rules, JSON answers with Express's
 * headers, the cached caller, instance entity and credentials (which must follow every change at
 * once, including one made by another connection such as the CLI), and the commit group of write
 * requests (which must leave the connection fully synchronous whatever happens).
 */
describe('request hot path', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let other: Db;
  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice', { scopes: 'read write' });
    // A second connection to the same file, as a `hearth` CLI command holds one.
    other = openDatabase(databasePath(inst.dataDir));
  });
  afterAll(async () => {
    other?.close();
    await inst?.close();
  });

  it('matches paths as Express does: any case, one trailing slash, literal routes registered first', async () => {
    expect((await inst.anon.get('/API/V1/Instance')).status).toBe(200);
    expect((await inst.anon.get('/api/v1/instance/')).status).toBe(200);
    expect((await inst.anon.get('/api/v1/instance//', { skipSchema: true })).status).toBe(404);
    const me = await alice.client.get('/api/v1/accounts/verify_credentials');
    expect(me.status).toBe(200);
    expect(me.body.source).toBeDefined();
    expect((await alice.client.get(`/api/v1/accounts/${alice.accountId}`)).body.source).toBeUndefined();
  });

  it('answers HEAD with the GET headers and no body, and OPTIONS with the allowed methods', async () => {
    const get = await inst.anon.get('/api/v1/instance');
    const head = await fetch(new URL('/api/v1/instance', inst.url), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(get.text)));
    expect(await head.text()).toBe('');
    const options = await fetch(new URL('/oauth/authorize', inst.url), { method: 'OPTIONS' });
    expect(options.status).toBe(200);
    expect(options.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(await options.text()).toBe('GET, HEAD, POST');
  });

  it('answers 400 for a malformed escape in a path parameter, whatever the method', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await inst.anon.request(method, '/api/v1/statuses/%E0%A4%A', { skipSchema: true });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "Failed to decode param '%E0%A4%A'" });
    }
  });

  it('writes JSON with the content type and length Express writes', async () => {
    for (const path of ['/api/v1/instance', '/api/v2/instance', '/api/v1/accounts/verify_credentials', '/api/v1/instance/rules']) {
      const res = await alice.client.get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(res.text)));
    }
  });

  it('refuses a token at once when another connection disables its user, and accepts it again when enabled', async () => {
    expect((await alice.client.get('/api/v1/accounts/verify_credentials')).status).toBe(200);
    other.query('UPDATE users SET disabled = 1 WHERE id = @id').run({ id: alice.userId });
    expect((await alice.client.get('/api/v1/accounts/verify_credentials', { skipSchema: true })).status).toBe(401);
    other.query('UPDATE users SET disabled = 0 WHERE id = @id').run({ id: alice.userId });
    expect((await alice.client.get('/api/v1/accounts/verify_credentials')).status).toBe(200);
  });

  it('uses changed credentials and posting defaults in the very next request', async () => {
    expect((await alice.client.get('/api/v1/accounts/verify_credentials')).body.source.privacy).toBe('public');
    const updated = await alice.client.patch('/api/v1/accounts/update_credentials', { display_name: 'Alice Renamed', source: { privacy: 'unlisted' } });
    expect(updated.status).toBe(200);
    const me = await alice.client.get('/api/v1/accounts/verify_credentials');
    expect(me.body.display_name).toBe('Alice Renamed');
    expect(me.body.source.privacy).toBe('unlisted');
    const posted = await alice.client.post('/api/v1/statuses', { status: 'With the new default' });
    expect(posted.status).toBe(200);
    expect(posted.body.visibility).toBe('unlisted');
  });

  it('shows new statuses and settings in the instance entities at once', async () => {
    const before = (await inst.anon.get('/api/v1/instance')).body;
    expect((await alice.client.post('/api/v1/statuses', { status: 'One more' })).status).toBe(200);
    expect((await inst.anon.get('/api/v1/instance')).body.stats.status_count).toBe(before.stats.status_count + 1);
    other.query("INSERT INTO settings (key, value) VALUES ('instance.title', @value) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run({ value: JSON.stringify('Renamed by the CLI') });
    expect((await inst.anon.get('/api/v1/instance')).body.title).toBe('Renamed by the CLI');
    expect((await inst.anon.get('/api/v2/instance')).body.title).toBe('Renamed by the CLI');
  });

  it('leaves the connection fully synchronous after requests that write, fail or redirect', async () => {
    const level = () => inst.app.deps.db.query<{ synchronous: number }>('PRAGMA synchronous').get()?.synchronous;
    expect(level()).toBe(2);
    expect((await alice.client.post('/api/v1/statuses', { status: 'Durable' })).status).toBe(200);
    expect(level()).toBe(2);
    expect((await alice.client.post('/api/v1/statuses', { status: '' })).status).toBe(422);
    expect(level()).toBe(2);
    expect((await alice.client.post('/api/v1/statuses/123/favourite', undefined, { skipSchema: true })).status).toBe(404);
    expect(level()).toBe(2);
    // A handler that answers by itself (a redirect page) inside the group.
    const page = await inst.anon.request('POST', '/oauth/authorize', { form: { client_id: 'nobody' }, skipSchema: true });
    expect(page.status).toBeGreaterThanOrEqual(200);
    expect(level()).toBe(2);
    // What was acknowledged is there for another connection.
    const mine = other.query<{ n: number }>("SELECT count(*) AS n FROM statuses WHERE text = 'Durable'").get();
    expect(mine?.n).toBe(1);
  });
});

