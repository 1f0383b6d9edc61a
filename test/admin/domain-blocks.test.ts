import { createHash } from 'node:crypto';
import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSION } from '../../api/util/permissions.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { createCustomRole, createStaff, createUserWithRole, STAFF_SCOPES } from '../helpers/roles.js';
import { expectEntity } from './moderation-schemas.js';

const sha = (domain: string) => createHash('sha256').update(domain).digest('hex');

/** The admin domain blocks and domain allows (manage_federation): methods, input, conflicts, roles. */
describe('admin domain blocks and allows', () => {
  let inst: TestInstance;
  let staff: Awaited<ReturnType<typeof createStaff>>;
  const count = (table: string) => inst.deps.db.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).get()?.n;

  beforeAll(async () => {
    inst = await startInstance();
    staff = await createStaff(inst);
  });
  afterAll(async () => {
    await inst.close();
  });

  it('creates with Mastodon defaults, shows, updates, lists with Link headers and deletes', async () => {
    const admin = staff.admin.client;
    const made = await admin.post('/api/v1/admin/domain_blocks', { domain: 'Spam.Example' });
    expect(made.status, made.text).toBe(200);
    expectEntity('AdminDomainBlock', made.body);
    expect(made.body).toEqual({
      id: expect.any(String),
      domain: 'spam.example',
      digest: sha('spam.example'),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      severity: 'silence',
      reject_media: false,
      reject_reports: false,
      private_comment: null,
      public_comment: null,
      obfuscate: false,
    });
    const full = await admin.post('/api/v1/admin/domain_blocks', undefined, {
      form: { domain: 'bücher.example', severity: 'suspend', reject_media: 'true', reject_reports: '1', private_comment: 'seen in the wild', public_comment: 'Harassment', obfuscate: 'true' },
    });
    expect(full.body).toMatchObject({ domain: 'xn--bcher-kva.example', severity: 'suspend', reject_media: true, reject_reports: true, private_comment: 'seen in the wild', public_comment: 'Harassment', obfuscate: true });
    const shown = await admin.get(`/api/v1/admin/domain_blocks/${full.body.id}`);
    expect(shown.body).toEqual(full.body);

    // Only what is given changes; the domain never does.
    const changed = await admin.put(`/api/v1/admin/domain_blocks/${made.body.id}`, { severity: 'noop', reject_media: true, domain: 'other.example' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ id: made.body.id, domain: 'spam.example', severity: 'noop', reject_media: true, reject_reports: false });
    expect((await admin.put(`/api/v1/admin/domain_blocks/${made.body.id}`, { public_comment: 'Spam' })).body).toMatchObject({ severity: 'noop', reject_media: true, public_comment: 'Spam' });

    const third = await admin.post('/api/v1/admin/domain_blocks', { domain: 'third.example', severity: 'noop', reject_reports: true });
    const all = await admin.get('/api/v1/admin/domain_blocks');
    expectEntity('AdminDomainBlock', all.body);
    expect(all.body.map((b: { id: string }) => b.id)).toEqual([third.body.id, full.body.id, made.body.id]);
    const page = await admin.get('/api/v1/admin/domain_blocks?limit=1');
    expect(page.body.map((b: { id: string }) => b.id)).toEqual([third.body.id]);
    expect(page.headers.get('link')).toContain(`max_id=${third.body.id}`);
    expect((await admin.get(`/api/v1/admin/domain_blocks?max_id=${third.body.id}&limit=1`)).body[0].id).toBe(full.body.id);

    for (const id of [made.body.id, full.body.id, third.body.id]) {
      const gone = await admin.delete(`/api/v1/admin/domain_blocks/${id}`);
      expect([gone.status, gone.body]).toEqual([200, {}]);
    }
    expect((await admin.get(`/api/v1/admin/domain_blocks/${made.body.id}`)).status).toBe(404);
    expect((await admin.delete(`/api/v1/admin/domain_blocks/${made.body.id}`)).status).toBe(404);
    expect((await admin.get('/api/v1/admin/domain_blocks/notanid')).status).toBe(404);
    expect(count('instance_domain_blocks')).toBe(0);
  });

  it('refuses bad input with Mastodon’s 422 and writes nothing', async () => {
    const admin = staff.admin.client;
    const cases: [unknown, string][] = [
      [{}, "Validation failed: Domain can't be blank"],
      [{ domain: '  ' }, "Validation failed: Domain can't be blank"],
      [{ domain: 'not a domain' }, 'Validation failed: Domain is not a valid domain name'],
      [{ domain: 'bad_label.example' }, 'Validation failed: Domain is not a valid domain name'],
      [{ domain: 'fine.example', severity: 'obliterate' }, 'Validation failed: Severity is not included in the list'],
    ];
    for (const [body, error] of cases) {
      const res = await admin.post('/api/v1/admin/domain_blocks', body);
      expect([res.status, res.body.error], JSON.stringify(body)).toEqual([422, error]);
    }
    expect(count('instance_domain_blocks')).toBe(0);
    const block = await admin.post('/api/v1/admin/domain_blocks', { domain: 'keep.example', severity: 'noop' });
    const bad = await admin.put(`/api/v1/admin/domain_blocks/${block.body.id}`, { severity: 'obliterate', reject_media: true });
    expect([bad.status, bad.body.error]).toEqual([422, 'Validation failed: Severity is not included in the list']);
    expect((await admin.get(`/api/v1/admin/domain_blocks/${block.body.id}`)).body).toMatchObject({ severity: 'noop', reject_media: false });
    await admin.delete(`/api/v1/admin/domain_blocks/${block.body.id}`);
  });

  it('answers a conflicting block with 422 and the existing_domain_block, as Mastodon does', async () => {
    const admin = staff.admin.client;
    const parent = await admin.post('/api/v1/admin/domain_blocks', { domain: 'parent.example', severity: 'silence', reject_media: true });
    // The same domain, even stricter: a conflict.
    const same = await admin.post('/api/v1/admin/domain_blocks', { domain: 'PARENT.example', severity: 'suspend' });
    expect(same.status).toBe(422);
    expect(same.body.error).toBe('You have already imposed stricter limits on parent.example.');
    expectEntity('AdminDomainBlock', same.body.existing_domain_block);
    expect(same.body.existing_domain_block).toEqual(parent.body);
    // A subdomain with milder or equal limits than its parent's block: a conflict.
    for (const milder of [{ severity: 'noop' }, { severity: 'silence' }, { severity: 'silence', reject_reports: true }]) {
      const res = await admin.post('/api/v1/admin/domain_blocks', { domain: 'sub.parent.example', ...milder });
      expect([res.status, res.body.existing_domain_block?.id], JSON.stringify(milder)).toEqual([422, parent.body.id]);
    }
    // Stricter than the parent's: allowed.
    const stricter = await admin.post('/api/v1/admin/domain_blocks', { domain: 'sub.parent.example', severity: 'silence', reject_media: true, reject_reports: true });
    expect(stricter.status, stricter.text).toBe(200);
    const suspended = await admin.post('/api/v1/admin/domain_blocks', { domain: 'deeper.sub.parent.example', severity: 'suspend' });
    expect(suspended.status).toBe(200);
    // Under a suspension only another suspension counts as stricter (Mastodon's `stricter_than?`);
    // the nearest block answers.
    const under = await admin.post('/api/v1/admin/domain_blocks', { domain: 'x.deeper.sub.parent.example', severity: 'silence', reject_media: true, reject_reports: true });
    expect([under.status, under.body.existing_domain_block.domain]).toEqual([422, 'deeper.sub.parent.example']);
    expect(count('instance_domain_blocks')).toBe(3);
    for (const b of [parent.body, stricter.body, suspended.body]) await admin.delete(`/api/v1/admin/domain_blocks/${b.id}`);
  });

  it('domain allows: create (an allowed domain answers its existing record), show, list, delete, bad input', async () => {
    const admin = staff.owner.client;
    const made = await admin.post('/api/v1/admin/domain_allows', { domain: 'Friends.Example' });
    expect(made.status, made.text).toBe(200);
    expectEntity('AdminDomainAllow', made.body);
    expect(made.body).toEqual({ id: expect.any(String), domain: 'friends.example', created_at: expect.any(String) });
    const again = await admin.post('/api/v1/admin/domain_allows', undefined, { form: { domain: 'friends.example' } });
    expect([again.status, again.body]).toEqual([200, made.body]);
    expect(count('instance_domain_allows')).toBe(1);
    const second = await admin.post('/api/v1/admin/domain_allows', { domain: 'pals.example' });
    expect((await admin.get('/api/v1/admin/domain_allows')).body.map((a: { domain: string }) => a.domain)).toEqual(['pals.example', 'friends.example']);
    expect((await admin.get(`/api/v1/admin/domain_allows/${made.body.id}`)).body).toEqual(made.body);
    expect((await admin.get('/api/v1/admin/domain_allows?limit=1')).headers.get('link')).toContain(`max_id=${second.body.id}`);
    for (const [body, error] of [
      [{}, "Validation failed: Domain can't be blank"],
      [{ domain: 'no spaces.example' }, 'Validation failed: Domain is not a valid domain name'],
    ] as const) {
      const res = await admin.post('/api/v1/admin/domain_allows', body);
      expect([res.status, res.body.error]).toEqual([422, error]);
    }
    const removed = await admin.delete(`/api/v1/admin/domain_allows/${made.body.id}`);
    expect([removed.status, removed.body]).toEqual([200, made.body]);
    expect((await admin.get(`/api/v1/admin/domain_allows/${made.body.id}`)).status).toBe(404);
    expect((await admin.delete(`/api/v1/admin/domain_allows/${made.body.id}`)).status).toBe(404);
    await admin.delete(`/api/v1/admin/domain_allows/${second.body.id}`);
    expect(count('instance_domain_allows')).toBe(0);
  });

  it('needs Manage Federation: owner and admin yes; moderator, user, no token and other scopes no', async () => {
    const federation = createCustomRole(inst, { name: 'Federation', permissions: PERMISSION.manageFederation });
    const custom = await createUserWithRole(inst, 'fedkeeper', { customRoleId: federation });
    const block = (await staff.owner.client.post('/api/v1/admin/domain_blocks', { domain: 'perm.example', severity: 'noop' })).body;
    const allow = (await staff.owner.client.post('/api/v1/admin/domain_allows', { domain: 'permallow.example' })).body;
    const methods: [string, string, string, unknown?][] = [
      ['GET', '/api/v1/admin/domain_blocks', 'admin:read:domain_blocks'],
      ['GET', `/api/v1/admin/domain_blocks/${block.id}`, 'admin:read:domain_blocks'],
      ['POST', '/api/v1/admin/domain_blocks', 'admin:write:domain_blocks', { domain: 'perm.example' }],
      ['PUT', `/api/v1/admin/domain_blocks/${block.id}`, 'admin:write:domain_blocks', { public_comment: 'x' }],
      ['GET', '/api/v1/admin/domain_allows', 'admin:read:domain_allows'],
      ['GET', `/api/v1/admin/domain_allows/${allow.id}`, 'admin:read:domain_allows'],
      ['POST', '/api/v1/admin/domain_allows', 'admin:write:domain_allows', { domain: 'permallow.example' }],
    ];
    for (const [method, path, scope, json] of methods) {
      const opts = json === undefined ? {} : { json };
      for (const who of [staff.owner, staff.admin, custom]) {
        const res = await who.client.request(method, path, opts);
        // Creating the block again is the conflict answer: the caller got past the permission.
        expect(res.status, `${who.username} ${method} ${path}: ${res.text}`).toBe(method === 'POST' && path.endsWith('domain_blocks') ? 422 : 200);
      }
      for (const who of [staff.moderator, staff.user]) {
        const res = await who.client.request(method, path, opts);
        expect([res.status, res.body], `${who.username} ${method} ${path}`).toEqual([403, { error: 'This action is not allowed' }]);
      }
      expect((await inst.anon.request(method, path, opts)).status).toBe(403);
      const wrong = await staff.owner.client.request(method, path, { ...opts, token: inst.tokenFor(staff.owner, 'read write admin:read:reports admin:write:reports') });
      expect([wrong.status, wrong.body.error]).toEqual([403, 'This action is outside the authorized scopes']);
      expect((await staff.owner.client.request(method, path, { ...opts, token: inst.tokenFor(staff.owner, scope) })).status).toBeLessThan(500);
    }
    for (const [path, id] of [['domain_blocks', block.id], ['domain_allows', allow.id]]) {
      expect((await staff.moderator.client.delete(`/api/v1/admin/${path}/${id}`)).status).toBe(403);
      expect((await staff.owner.client.delete(`/api/v1/admin/${path}/${id}`)).status).toBe(200);
    }
  });

  it('is driven by the masto client', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: inst.tokenFor(staff.admin, STAFF_SCOPES) });
    const block = await masto.v1.admin.domainBlocks.create({ domain: 'masto.example', severity: 'noop', rejectMedia: true, publicComment: 'Media spam' });
    expect(block).toMatchObject({ domain: 'masto.example', severity: 'noop', rejectMedia: true, publicComment: 'Media spam' });
    expect((await masto.v1.admin.domainBlocks.$select(block.id).update({ severity: 'silence', rejectMedia: false })).severity).toBe('silence');
    expect((await masto.v1.admin.domainBlocks.$select(block.id).fetch()).rejectMedia).toBe(false);
    expect((await masto.v1.admin.domainBlocks.list()).map((b) => b.domain)).toEqual(['masto.example']);
    await masto.v1.admin.domainBlocks.$select(block.id).remove();
    expect(await masto.v1.admin.domainBlocks.list()).toEqual([]);
    const allow = await masto.v1.admin.domainAllows.create({ domain: 'masto-friend.example' });
    expect((await masto.v1.admin.domainAllows.create({ domain: 'masto-friend.example' })).id).toBe(allow.id);
    expect((await masto.v1.admin.domainAllows.$select(allow.id).fetch()).domain).toBe('masto-friend.example');
    await masto.v1.admin.domainAllows.$select(allow.id).remove();
    expect(await masto.v1.admin.domainAllows.list()).toEqual([]);
  });
});
