import { createHash } from 'node:crypto';
import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalEmail } from '../../api/core/admin/email-blocks.js';
import { insertInvite } from '../../api/db/repos/invites.js';
import { countUsers } from '../../api/db/repos/users.js';
import { newId } from '../../api/util/ids.js';
import { appToken } from '../accounts/helpers.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { createStaff, STAFF_SCOPES } from '../helpers/roles.js';
import { expectEntity } from './moderation-schemas.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const DAY = 86_400;

/** E-mail domain blocks and canonical e-mail blocks (manage_blocks), and the sign-ups they refuse. */
describe('admin e-mail blocks', () => {
  let inst: TestInstance;
  let staff: Awaited<ReturnType<typeof createStaff>>;
  let app: string;
  let n = 0;

  const signUp = (email: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
    inst.anon.post('/api/v1/accounts', { username: `signup${++n}`, email, password: 'correct horse battery', agreement: true, locale: 'en', ...extra }, { token: app, headers });

  beforeAll(async () => {
    inst = await startInstance({ registrations: 'open', rateLimitScale: 100 });
    staff = await createStaff(inst);
    app = appToken(inst).token;
  });
  afterAll(async () => {
    await inst.close();
  });

  it('e-mail domain blocks: create, show with a week of history, list, delete; bad input writes nothing', async () => {
    const admin = staff.admin.client;
    const made = await admin.post('/api/v1/admin/email_domain_blocks', { domain: ' Mail.Example ' });
    expect(made.status, made.text).toBe(200);
    expectEntity('AdminEmailDomainBlock', made.body);
    const today = Math.floor(Date.now() / 1000 / DAY) * DAY;
    expect(made.body).toEqual({
      id: expect.any(String),
      domain: 'mail.example',
      created_at: expect.any(String),
      history: Array.from({ length: 7 }, (_, i) => ({ day: String(today - i * DAY), accounts: '0', uses: '0' })),
    });
    expect((await admin.get(`/api/v1/admin/email_domain_blocks/${made.body.id}`)).body).toEqual(made.body);
    const second = await admin.post('/api/v1/admin/email_domain_blocks', undefined, { form: { domain: 'bücher.example' } });
    expect(second.body.domain).toBe('xn--bcher-kva.example');
    const list = await admin.get('/api/v1/admin/email_domain_blocks?limit=1');
    expect(list.body.map((b: { id: string }) => b.id)).toEqual([second.body.id]);
    expect(list.headers.get('link')).toContain(`max_id=${second.body.id}`);

    const before = (await admin.get('/api/v1/admin/email_domain_blocks')).body.length;
    for (const [body, error] of [
      [{}, "Validation failed: Domain can't be blank"],
      [{ domain: 'not a domain!' }, 'Validation failed: Domain is invalid, Domain is not a valid domain name'],
      [{ domain: 'user@mail.example' }, 'Validation failed: Domain is invalid, Domain is not a valid domain name'],
      [{ domain: 'MAIL.example' }, 'Validation failed: Domain has already been taken'],
    ] as const) {
      const res = await admin.post('/api/v1/admin/email_domain_blocks', body);
      expect([res.status, res.body.error], JSON.stringify(body)).toEqual([422, error]);
    }
    expect((await admin.get('/api/v1/admin/email_domain_blocks')).body.length).toBe(before);
    const gone = await admin.delete(`/api/v1/admin/email_domain_blocks/${second.body.id}`);
    expect([gone.status, gone.body]).toEqual([200, {}]);
    expect((await admin.get(`/api/v1/admin/email_domain_blocks/${second.body.id}`)).status).toBe(404);
    expect((await admin.delete(`/api/v1/admin/email_domain_blocks/${second.body.id}`)).status).toBe(404);
  });

  it('sign-up refuses an address of a blocked domain or its subdomains, counts the attempts, and an invite gets through', async () => {
    const users = countUsers(inst.deps.db);
    for (const email of ['someone@mail.example', 'Someone@Sub.MAIL.example']) {
      const res = await signUp(email);
      expect(res.status, res.text).toBe(422);
      expect(res.body).toEqual({
        error: 'Validation failed: E-mail address uses a disallowed e-mail provider',
        details: { email: [{ error: 'ERR_BLOCKED', description: 'uses a disallowed e-mail provider' }] },
      });
    }
    expect((await signUp('someone@elsewhere.example', { 'x-forwarded-for': '198.51.100.20' })).status).toBe(200);
    expect((await signUp('other@mail.example', { 'x-forwarded-for': '198.51.100.20' })).status).toBe(422);
    expect(countUsers(inst.deps.db)).toBe(users + 1);
    const block = (await staff.admin.client.get('/api/v1/admin/email_domain_blocks')).body.find((b: { domain: string }) => b.domain === 'mail.example');
    // Three attempts today, from two addresses (this machine and 198.51.100.20).
    expect(block.history[0]).toMatchObject({ uses: '3', accounts: '2' });
    expect(block.history.slice(1).every((d: { uses: string }) => d.uses === '0')).toBe(true);

    // Mastodon lets a valid invite past the e-mail blocks.
    const inviter = staff.owner.userId;
    insertInvite(inst.deps.db, { id: newId(), user_id: inviter, code: 'mailinvite', max_uses: null, uses: 0, autofollow: 0, comment: null, expires_at: null, created_at: Date.now() });
    expect((await signUp('invited@mail.example', {}, { invite_code: 'mailinvite' })).status).toBe(200);
  });

  it('canonical e-mail blocks: by address or hash, the test method, and sign-up', async () => {
    const admin = staff.owner.client;
    expect(canonicalEmail('J.Doe+news@Example.com')).toBe('jdoe@example.com');
    const byEmail = await admin.post('/api/v1/admin/canonical_email_blocks', { email: 'J.Doe+news@Example.com' });
    expect(byEmail.status, byEmail.text).toBe(200);
    expectEntity('AdminCanonicalEmailBlock', byEmail.body);
    expect(byEmail.body).toEqual({ id: expect.any(String), canonical_email_hash: sha('jdoe@example.com') });
    const byHash = await admin.post('/api/v1/admin/canonical_email_blocks', undefined, { form: { canonical_email_hash: sha('spammer@example.org') } });
    expect(byHash.body.canonical_email_hash).toBe(sha('spammer@example.org'));
    // The address wins over a hash given with it.
    const dup = await admin.post('/api/v1/admin/canonical_email_blocks', { email: 'jdoe@example.com', canonical_email_hash: sha('x') });
    expect([dup.status, dup.body.error]).toEqual([422, 'Validation failed: Canonical email hash has already been taken']);
    const blank = await admin.post('/api/v1/admin/canonical_email_blocks', {});
    expect([blank.status, blank.body.error]).toEqual([422, "Validation failed: Canonical email hash can't be blank"]);
    expect((await admin.get('/api/v1/admin/canonical_email_blocks')).body).toEqual([byHash.body, byEmail.body]);
    expect((await admin.get(`/api/v1/admin/canonical_email_blocks/${byEmail.body.id}`)).body).toEqual(byEmail.body);

    const test = async (email: string) => (await admin.post('/api/v1/admin/canonical_email_blocks/test', { email })).body;
    expect(await test('jdoe@example.com')).toEqual([byEmail.body]);
    expect(await test('j.d.o.e+other@EXAMPLE.com')).toEqual([byEmail.body]);
    expect(await test('jdoe@example.org')).toEqual([]);
    expect((await admin.post('/api/v1/admin/canonical_email_blocks/test', {})).status).toBe(400);

    const refused = await signUp('J.Doe+x@Example.com');
    expect(refused.status).toBe(422);
    expect(refused.body.details).toEqual({ email: [{ error: 'ERR_TAKEN', description: 'has already been taken' }] });
    expect(refused.body.error).toBe('Validation failed: E-mail address has already been taken');
    const deleted = await admin.delete(`/api/v1/admin/canonical_email_blocks/${byEmail.body.id}`);
    expect([deleted.status, deleted.body]).toEqual([200, {}]);
    expect((await admin.get(`/api/v1/admin/canonical_email_blocks/${byEmail.body.id}`)).status).toBe(404);
    expect((await signUp('j.doe+x@example.com')).status).toBe(200);
  });

  it('needs Manage Blocks: owner and admin yes; moderator, user, no token and other scopes no', async () => {
    const edb = (await staff.owner.client.post('/api/v1/admin/email_domain_blocks', { domain: 'perm.example' })).body;
    const ceb = (await staff.owner.client.post('/api/v1/admin/canonical_email_blocks', { email: 'perm@example.com' })).body;
    const methods: [string, string, string, unknown?][] = [
      ['GET', '/api/v1/admin/email_domain_blocks', 'admin:read:email_domain_blocks'],
      ['GET', `/api/v1/admin/email_domain_blocks/${edb.id}`, 'admin:read:email_domain_blocks'],
      ['POST', '/api/v1/admin/email_domain_blocks', 'admin:write:email_domain_blocks', { domain: 'perm.example' }],
      ['GET', '/api/v1/admin/canonical_email_blocks', 'admin:read:canonical_email_blocks'],
      ['GET', `/api/v1/admin/canonical_email_blocks/${ceb.id}`, 'admin:read:canonical_email_blocks'],
      ['POST', '/api/v1/admin/canonical_email_blocks/test', 'admin:read:canonical_email_blocks', { email: 'perm@example.com' }],
      ['POST', '/api/v1/admin/canonical_email_blocks', 'admin:write:canonical_email_blocks', { email: 'perm@example.com' }],
    ];
    for (const [method, path, scope, json] of methods) {
      const opts = json === undefined ? {} : { json };
      const creates = method === 'POST' && !path.endsWith('/test');
      for (const who of [staff.owner, staff.admin]) {
        const res = await who.client.request(method, path, opts);
        // Creating the same block again is the duplicate answer: the caller got past the permission.
        expect(res.status, `${who.username} ${method} ${path}: ${res.text}`).toBe(creates ? 422 : 200);
      }
      for (const who of [staff.moderator, staff.user]) {
        const res = await who.client.request(method, path, opts);
        expect([res.status, res.body], `${who.username} ${method} ${path}`).toEqual([403, { error: 'This action is not allowed' }]);
      }
      expect((await inst.anon.request(method, path, opts)).status).toBe(403);
      const wrong = await staff.owner.client.request(method, path, { ...opts, token: inst.tokenFor(staff.owner, 'read write admin:read:domain_blocks admin:write:domain_blocks') });
      expect([wrong.status, wrong.body.error]).toEqual([403, 'This action is outside the authorized scopes']);
      expect((await staff.owner.client.request(method, path, { ...opts, token: inst.tokenFor(staff.owner, scope) })).status).toBe(creates ? 422 : 200);
    }
    for (const [path, id] of [['email_domain_blocks', edb.id], ['canonical_email_blocks', ceb.id]]) {
      expect((await staff.moderator.client.delete(`/api/v1/admin/${path}/${id}`)).status).toBe(403);
      expect((await staff.admin.client.delete(`/api/v1/admin/${path}/${id}`)).status).toBe(200);
    }
  });

  it('is driven by the masto client', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: inst.tokenFor(staff.admin, STAFF_SCOPES) });
    const edb = await masto.v1.admin.emailDomainBlocks.create({ domain: 'masto-mail.example' });
    expect(edb.history).toHaveLength(7);
    expect((await masto.v1.admin.emailDomainBlocks.$select(edb.id).fetch()).domain).toBe('masto-mail.example');
    expect((await masto.v1.admin.emailDomainBlocks.list()).map((b) => b.domain)).toContain('masto-mail.example');
    await masto.v1.admin.emailDomainBlocks.$select(edb.id).remove();
    const ceb = await masto.v1.admin.canonicalEmailBlocks.create({ email: 'Masto.User+x@example.net' });
    expect(ceb.canonicalEmailHash).toBe(sha('mastouser@example.net'));
    expect((await masto.v1.admin.canonicalEmailBlocks.test({ email: 'mastouser@example.net' })).map((b) => b.id)).toEqual([ceb.id]);
    await masto.v1.admin.canonicalEmailBlocks.$select(ceb.id).remove();
    expect(await masto.v1.admin.canonicalEmailBlocks.test({ email: 'mastouser@example.net' })).toEqual([]);
  });
});
