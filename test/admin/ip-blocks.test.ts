import { createRestAPIClient } from 'masto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findUserById } from '../../api/db/repos/users.js';
import { resetClock, setClockOffset } from '../../api/util/clock.js';
import { appToken } from '../accounts/helpers.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { createStaff, STAFF_SCOPES } from '../helpers/roles.js';
import { expectEntity } from './moderation-schemas.js';

/**
 * IP blocks (manage_blocks): the methods, their validation, expiry, and what each severity does.
 * Requests come from this machine; a proxy on loopback names the client's address in
 * X-Forwarded-For, which is how these tests speak from other addresses.
 */
describe('admin IP blocks', () => {
  let inst: TestInstance;
  let staff: Awaited<ReturnType<typeof createStaff>>;
  let app: string;
  let n = 0;
  const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
  const count = () => inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM ip_blocks').get()?.n;
  const signUp = (address: string) =>
    inst.anon.post('/api/v1/accounts', { username: `ipuser${++n}`, email: `ipuser${n}@example.test`, password: 'correct horse battery', agreement: true, locale: 'en' }, { token: app, ...from(address) });
  const create = async (params: Record<string, unknown>) => {
    const res = await staff.admin.client.post('/api/v1/admin/ip_blocks', params);
    expect(res.status, res.text).toBe(200);
    return res.body as { id: string };
  };

  beforeAll(async () => {
    inst = await startInstance({ registrations: 'open', rateLimitScale: 100 });
    staff = await createStaff(inst);
    app = appToken(inst).token;
  });
  afterAll(async () => {
    await inst.close();
  });
  afterEach(() => {
    resetClock();
  });

  it('creates (ranges masked to their prefix), shows, lists, updates and deletes', async () => {
    const admin = staff.admin.client;
    const one = await admin.post('/api/v1/admin/ip_blocks', { ip: '192.0.2.7', severity: 'no_access', comment: 'scraper', expires_in: 3600 });
    expect(one.status, one.text).toBe(200);
    expectEntity('AdminIpBlock', one.body);
    expect(one.body).toEqual({ id: expect.any(String), ip: '192.0.2.7/32', severity: 'no_access', comment: 'scraper', created_at: expect.any(String), expires_at: expect.any(String) });
    expect(Date.parse(one.body.expires_at) - Date.parse(one.body.created_at)).toBe(3_600_000);
    const net = await admin.post('/api/v1/admin/ip_blocks', undefined, { form: { ip: '10.1.2.3/8', severity: 'sign_up_block' } });
    expect(net.body).toMatchObject({ ip: '10.0.0.0/8', comment: '', expires_at: null });
    const v6 = await admin.post('/api/v1/admin/ip_blocks', { ip: '2001:DB8:0:0:1::1/32', severity: 'sign_up_requires_approval' });
    expect(v6.body.ip).toBe('2001:db8::/32');
    // Without an address Mastodon blocks 0.0.0.0, its column default.
    const bare = await admin.post('/api/v1/admin/ip_blocks', { severity: 'sign_up_block' });
    expect(bare.body.ip).toBe('0.0.0.0/32');

    expect((await admin.get(`/api/v1/admin/ip_blocks/${one.body.id}`)).body).toEqual(one.body);
    const all = await admin.get('/api/v1/admin/ip_blocks');
    expectEntity('AdminIpBlock', all.body);
    expect(all.body.map((b: { id: string }) => b.id)).toEqual([bare.body.id, v6.body.id, net.body.id, one.body.id]);
    const page = await admin.get('/api/v1/admin/ip_blocks?limit=2');
    expect(page.body).toHaveLength(2);
    expect(page.headers.get('link')).toContain(`max_id=${v6.body.id}`);

    const changed = await admin.put(`/api/v1/admin/ip_blocks/${one.body.id}`, { ip: '192.0.2.0/24', comment: 'the whole range', expires_in: '' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ ip: '192.0.2.0/24', severity: 'no_access', comment: 'the whole range', expires_at: null });
    expect((await admin.put(`/api/v1/admin/ip_blocks/${one.body.id}`, { severity: 'sign_up_block' })).body).toMatchObject({ ip: '192.0.2.0/24', severity: 'sign_up_block' });
    for (const b of [one, net, v6, bare]) {
      const gone = await admin.delete(`/api/v1/admin/ip_blocks/${b.body.id}`);
      expect([gone.status, gone.body]).toEqual([200, {}]);
    }
    expect((await admin.get(`/api/v1/admin/ip_blocks/${one.body.id}`)).status).toBe(404);
    expect((await admin.delete(`/api/v1/admin/ip_blocks/${one.body.id}`)).status).toBe(404);
    expect((await admin.put(`/api/v1/admin/ip_blocks/${one.body.id}`, { comment: 'x' })).status).toBe(404);
    expect(count()).toBe(0);
  });

  it('refuses bad input with every failure in Mastodon’s words, and writes nothing', async () => {
    const admin = staff.admin.client;
    const kept = await create({ ip: '198.51.100.0/24', severity: 'sign_up_block' });
    const cases: [unknown, string][] = [
      [{ ip: '203.0.113.1' }, "Validation failed: Severity can't be blank"],
      [{ ip: '203.0.113.1', severity: 'banish' }, 'Validation failed: Severity is not included in the list'],
      [{ ip: 'not-an-address', severity: 'no_access' }, "Validation failed: Ip can't be blank"],
      [{ ip: '203.0.113.1/33', severity: 'no_access' }, "Validation failed: Ip can't be blank"],
      [{ ip: '198.51.100.9/24', severity: 'no_access' }, 'Validation failed: Ip has already been taken'],
      [{ ip: '198.51.100.0/24' }, "Validation failed: Severity can't be blank, Ip has already been taken"],
      [{ ip: '203.0.113.1', severity: 'no_access', expires_in: 'soon' }, 'Validation failed: Expires in is not a number'],
    ];
    for (const [body, error] of cases) {
      const res = await admin.post('/api/v1/admin/ip_blocks', body);
      expect([res.status, res.body.error], JSON.stringify(body)).toEqual([422, error]);
    }
    const other = await create({ ip: '203.0.113.0/24', severity: 'sign_up_block' });
    const clash = await admin.put(`/api/v1/admin/ip_blocks/${other.id}`, { ip: '198.51.100.0/24', comment: 'moved' });
    expect([clash.status, clash.body.error]).toEqual([422, 'Validation failed: Ip has already been taken']);
    expect((await admin.get(`/api/v1/admin/ip_blocks/${other.id}`)).body).toMatchObject({ ip: '203.0.113.0/24', comment: '' });
    expect(count()).toBe(2);
    for (const b of [kept, other]) await admin.delete(`/api/v1/admin/ip_blocks/${b.id}`);
  });

  it('no_access refuses every request from the range with 403; other addresses and this machine go on', async () => {
    const block = await create({ ip: '203.0.113.0/24', severity: 'no_access' });
    const v6 = await create({ ip: '2001:db8:bad::/48', severity: 'no_access' });
    for (const address of ['203.0.113.77', '2001:db8:bad:1::5', '::ffff:203.0.113.8']) {
      for (const path of ['/api/v1/instance', '/api/v1/timelines/public', '/oauth/authorize?client_id=x']) {
        const res = await inst.anon.get(path, from(address));
        expect([res.status, res.body], `${address} ${path}`).toEqual([403, { error: 'Forbidden' }]);
      }
      // A signed-in user from there is refused as well.
      expect((await staff.user.client.get('/api/v1/accounts/verify_credentials', from(address))).status).toBe(403);
    }
    expect((await inst.anon.get('/api/v1/instance', from('203.0.114.1'))).status).toBe(200);
    expect((await inst.anon.get('/api/v1/instance', from('2001:db8:bae::1'))).status).toBe(200);
    // Loopback is never blocked, whatever the rules say: the owner's apps keep working.
    const loopback = await create({ ip: '127.0.0.0/8', severity: 'no_access' });
    expect((await inst.anon.get('/api/v1/instance')).status).toBe(200);
    // Lifted: at once.
    await staff.admin.client.delete(`/api/v1/admin/ip_blocks/${block.id}`);
    expect((await inst.anon.get('/api/v1/instance', from('203.0.113.77'))).status).toBe(200);
    for (const b of [v6, loopback]) await staff.admin.client.delete(`/api/v1/admin/ip_blocks/${b.id}`);
  });

  it('sign_up_block refuses sign-ups (403); sign_up_requires_approval makes them pending', async () => {
    const refuse = await create({ ip: '198.51.100.0/25', severity: 'sign_up_block' });
    const wait = await create({ ip: '198.51.100.128/25', severity: 'sign_up_requires_approval' });
    const refused = await signUp('198.51.100.10');
    expect([refused.status, refused.body]).toEqual([403, { error: 'This action is not allowed' }]);
    // Only sign-ups: the rest of the API answers that address.
    expect((await inst.anon.get('/api/v1/instance', from('198.51.100.10'))).status).toBe(200);

    const pending = await signUp('198.51.100.200');
    expect(pending.status, pending.text).toBe(200);
    const me = await inst.anon.get('/api/v1/accounts/verify_credentials', { token: pending.body.access_token });
    expect([me.status, me.body.error]).toEqual([403, 'Your login is currently pending approval']);
    const user = inst.deps.db.query<{ id: string; sign_up_ip: string }>("SELECT id, sign_up_ip FROM users WHERE email = @email").get({ email: `ipuser${n}@example.test` });
    expect(user?.sign_up_ip).toBe('198.51.100.200');
    expect(findUserById(inst.deps.db, user?.id ?? '')?.approved).toBe(0);

    const elsewhere = await signUp('192.0.2.50');
    expect(elsewhere.status).toBe(200);
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token: elsewhere.body.access_token })).status).toBe(200);
    for (const b of [refuse, wait]) await staff.admin.client.delete(`/api/v1/admin/ip_blocks/${b.id}`);
  });

  it('an expired block no longer applies, is no longer listed, and its range may be blocked anew', async () => {
    const block = await create({ ip: '192.0.2.0/24', severity: 'no_access', expires_in: 60 });
    expect((await inst.anon.get('/api/v1/instance', from('192.0.2.1'))).status).toBe(403);
    setClockOffset(61_000);
    expect((await inst.anon.get('/api/v1/instance', from('192.0.2.1'))).status).toBe(200);
    expect((await staff.admin.client.get('/api/v1/admin/ip_blocks')).body).toEqual([]);
    expect((await staff.admin.client.get(`/api/v1/admin/ip_blocks/${block.id}`)).status).toBe(404);
    const again = await create({ ip: '192.0.2.0/24', severity: 'sign_up_block' });
    expect(count()).toBe(1);
    await staff.admin.client.delete(`/api/v1/admin/ip_blocks/${again.id}`);
  });

  it('needs Manage Blocks: owner and admin yes; moderator, user, no token and other scopes no', async () => {
    const block = await create({ ip: '192.0.2.99', severity: 'sign_up_block' });
    const methods: [string, string, string, unknown?][] = [
      ['GET', '/api/v1/admin/ip_blocks', 'admin:read:ip_blocks'],
      ['GET', `/api/v1/admin/ip_blocks/${block.id}`, 'admin:read:ip_blocks'],
      ['PUT', `/api/v1/admin/ip_blocks/${block.id}`, 'admin:write:ip_blocks', { comment: 'checked' }],
      ['POST', '/api/v1/admin/ip_blocks', 'admin:write:ip_blocks', { ip: '192.0.2.99', severity: 'no_access' }],
    ];
    for (const [method, path, scope, json] of methods) {
      const opts = json === undefined ? {} : { json };
      const expected = method === 'POST' ? 422 : 200;
      for (const who of [staff.owner, staff.admin]) expect((await who.client.request(method, path, opts)).status, `${who.username} ${method} ${path}`).toBe(expected);
      for (const who of [staff.moderator, staff.user]) {
        const res = await who.client.request(method, path, opts);
        expect([res.status, res.body], `${who.username} ${method} ${path}`).toEqual([403, { error: 'This action is not allowed' }]);
      }
      expect((await inst.anon.request(method, path, opts)).status).toBe(403);
      const wrong = await staff.owner.client.request(method, path, { ...opts, token: inst.tokenFor(staff.owner, 'read write admin:read:reports admin:write:domain_blocks') });
      expect([wrong.status, wrong.body.error]).toEqual([403, 'This action is outside the authorized scopes']);
      expect((await staff.owner.client.request(method, path, { ...opts, token: inst.tokenFor(staff.owner, scope) })).status).toBe(expected);
    }
    expect((await staff.moderator.client.delete(`/api/v1/admin/ip_blocks/${block.id}`)).status).toBe(403);
    expect((await staff.owner.client.delete(`/api/v1/admin/ip_blocks/${block.id}`)).status).toBe(200);
  });

  it('is driven by the masto client', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: inst.tokenFor(staff.owner, STAFF_SCOPES) });
    const block = await masto.v1.admin.ipBlocks.create({ ip: '203.0.113.5', severity: 'sign_up_requires_approval', comment: 'masto', expiresIn: 86_400 });
    expect(block).toMatchObject({ ip: '203.0.113.5/32', severity: 'sign_up_requires_approval', comment: 'masto' });
    expect((await masto.v1.admin.ipBlocks.$select(block.id).update({ severity: 'sign_up_block' })).severity).toBe('sign_up_block');
    expect((await masto.v1.admin.ipBlocks.$select(block.id).fetch()).comment).toBe('masto');
    expect((await masto.v1.admin.ipBlocks.list()).map((b) => b.id)).toEqual([block.id]);
    await masto.v1.admin.ipBlocks.$select(block.id).remove();
    expect(await masto.v1.admin.ipBlocks.list()).toEqual([]);
  });
});
