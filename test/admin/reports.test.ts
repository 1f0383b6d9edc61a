import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../api/cli.js';
import { addRule } from '../../api/core/instance/rules.js';
import { PERMISSION } from '../../api/util/permissions.js';
import { postStatus } from '../helpers/fixtures.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { createCustomRole, createStaff, createUserWithRole, STAFF_SCOPES } from '../helpers/roles.js';
import { expectEntity } from './moderation-schemas.js';

/** The admin reports API (manage_reports), its Admin::Report entity, and `hearth reports`. */
describe('admin reports', () => {
  let inst: TestInstance;
  let staff: Awaited<ReturnType<typeof createStaff>>;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let ruleId: string;
  let bobStatus: string;
  let bobPrivate: string;
  /** Alice's report about Bob (with two statuses), Carol's about Bob, Alice's about Carol. */
  const r = { aliceBob: '', carolBob: '', aliceCarol: '' };

  const report = async (who: TestUser, params: Record<string, unknown>): Promise<string> => {
    const res = await who.client.post('/api/v1/reports', params);
    expect(res.status, res.text).toBe(200);
    return res.body.id;
  };

  beforeAll(async () => {
    inst = await startInstance();
    staff = await createStaff(inst);
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    ruleId = addRule(inst.deps, { text: 'No spam', hint: 'Selling things counts.' }).id;
    bobStatus = (await postStatus(bob.client, { status: 'buy my stuff' })).id;
    // Private: Alice follows Bob to see (and attach) it; staff see it whatever its visibility.
    await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`);
    bobPrivate = (await postStatus(bob.client, { status: 'followers only pitch', visibility: 'private' })).id;
    r.aliceBob = await report(alice, { account_id: bob.accountId, status_ids: [bobStatus, bobPrivate], comment: 'Spam', category: 'spam' });
    r.carolBob = await report(carol, { account_id: bob.accountId, comment: 'Same here' });
    r.aliceCarol = await report(alice, { account_id: carol.accountId, rule_ids: [ruleId] });
  }, 60_000);
  afterAll(async () => {
    await inst.close();
  });

  it('answers the Admin::Report entity: accounts as Admin::Account, the statuses and the rules', async () => {
    const res = await staff.moderator.client.get(`/api/v1/admin/reports/${r.aliceBob}`);
    expect(res.status, res.text).toBe(200);
    expectEntity('AdminReport', res.body);
    expect(res.body).toMatchObject({
      id: r.aliceBob,
      action_taken: false,
      action_taken_at: null,
      category: 'spam',
      comment: 'Spam',
      forwarded: false,
      account: { id: alice.accountId, username: 'alice', email: 'alice@example.test', account: { id: alice.accountId, acct: 'alice' } },
      target_account: { id: bob.accountId, username: 'bob', account: { id: bob.accountId } },
      assigned_account: null,
      action_taken_by_account: null,
      rules: [],
    });
    // Both statuses, the private one included, as full Status entities.
    expect(res.body.statuses.map((s: { id: string }) => s.id)).toEqual([bobStatus, bobPrivate]);
    expect(res.body.statuses[1]).toMatchObject({ visibility: 'private', content: expect.stringContaining('followers only pitch') });
    expect(res.body.updated_at).toBe(res.body.created_at);
    const cited = await staff.admin.client.get(`/api/v1/admin/reports/${r.aliceCarol}`);
    expect(cited.body).toMatchObject({ category: 'violation', rules: [{ id: ruleId, text: 'No spam', hint: 'Selling things counts.' }] });
  });

  it('lists open reports newest first, filters by reporter, target and resolution, and pages with Link headers', async () => {
    const ids = async (query: string) => {
      const res = await staff.owner.client.get(`/api/v1/admin/reports${query}`);
      expect(res.status, res.text).toBe(200);
      expectEntity('AdminReport', res.body);
      return res.body.map((x: { id: string }) => x.id);
    };
    expect(await ids('')).toEqual([r.aliceCarol, r.carolBob, r.aliceBob]);
    expect(await ids(`?account_id=${alice.accountId}`)).toEqual([r.aliceCarol, r.aliceBob]);
    expect(await ids(`?target_account_id=${bob.accountId}`)).toEqual([r.carolBob, r.aliceBob]);
    expect(await ids(`?account_id=${alice.accountId}&target_account_id=${bob.accountId}`)).toEqual([r.aliceBob]);
    expect(await ids('?account_id=nobody')).toEqual([]);
    expect(await ids('?resolved=true')).toEqual([]);
    const page = await staff.owner.client.get('/api/v1/admin/reports?limit=2');
    expect(page.body.map((x: { id: string }) => x.id)).toEqual([r.aliceCarol, r.carolBob]);
    const link = page.headers.get('link') ?? '';
    expect(link).toContain(`max_id=${r.carolBob}`);
    expect(link).toContain(`min_id=${r.aliceCarol}`);
    const next = new URL(/<([^>]+)>; rel="next"/.exec(link)?.[1] ?? '');
    expect(await ids(`${next.search}`)).toEqual([r.aliceBob]);
    expect(await ids(`?min_id=${r.aliceBob}&limit=1`)).toEqual([r.carolBob]);
  });

  it('assigns, unassigns, resolves and reopens, each answering the report', async () => {
    const base = `/api/v1/admin/reports/${r.carolBob}`;
    const assigned = await staff.moderator.client.post(`${base}/assign_to_self`);
    expect(assigned.status, assigned.text).toBe(200);
    expectEntity('AdminReport', assigned.body);
    expect(assigned.body.assigned_account).toMatchObject({ id: staff.moderator.accountId, role: { name: 'Moderator' } });
    // Assigning again keeps it so; another staff member takes it over.
    expect((await staff.moderator.client.post(`${base}/assign_to_self`)).body.assigned_account.id).toBe(staff.moderator.accountId);
    expect((await staff.admin.client.post(`${base}/assign_to_self`)).body.assigned_account.id).toBe(staff.admin.accountId);
    expect((await staff.admin.client.post(`${base}/unassign`)).body.assigned_account).toBeNull();

    const resolved = await staff.admin.client.post(`${base}/resolve`);
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ action_taken: true, action_taken_by_account: { id: staff.admin.accountId } });
    expect(Date.parse(resolved.body.action_taken_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(Date.parse(resolved.body.updated_at)).toBeGreaterThan(Date.parse(resolved.body.created_at));
    // Resolving again keeps the first resolution.
    const again = await staff.owner.client.post(`${base}/resolve`);
    expect(again.body).toMatchObject({ action_taken_at: resolved.body.action_taken_at, action_taken_by_account: { id: staff.admin.accountId } });
    const listed = await staff.owner.client.get('/api/v1/admin/reports?resolved=true');
    expect(listed.body.map((x: { id: string }) => x.id)).toEqual([r.carolBob]);
    expect((await staff.owner.client.get('/api/v1/admin/reports')).body.map((x: { id: string }) => x.id)).not.toContain(r.carolBob);

    const reopened = await staff.moderator.client.post(`${base}/reopen`);
    expect(reopened.body).toMatchObject({ action_taken: false, action_taken_at: null, action_taken_by_account: null });
    expect((await staff.owner.client.get('/api/v1/admin/reports')).body.map((x: { id: string }) => x.id)).toContain(r.carolBob);
    // The reporter's own view follows: the report is open again.
    expect((await staff.moderator.client.post(`${base}/reopen`)).body.action_taken).toBe(false);
  });

  it('changes the category and rules; bad input is 422 and changes nothing', async () => {
    const base = `/api/v1/admin/reports/${r.aliceBob}`;
    const legal = await staff.moderator.client.put(base, { category: 'legal' });
    expect(legal.status, legal.text).toBe(200);
    expect(legal.body).toMatchObject({ category: 'legal', rules: [] });
    const violation = await staff.moderator.client.put(base, undefined, { form: { category: 'violation', 'rule_ids[]': [ruleId] } });
    expect(violation.body).toMatchObject({ category: 'violation', rules: [{ id: ruleId }] });
    const unknownRule = await staff.moderator.client.put(base, { category: 'violation', rule_ids: ['123456789'] });
    expect(unknownRule.status).toBe(422);
    expect(unknownRule.body.error).toBe('Validation failed: Rule ids does not reference valid rules');
    const badCategory = await staff.moderator.client.put(base, { category: 'rude' });
    expect(badCategory.status).toBe(422);
    expect(badCategory.body.error).toBe('Validation failed: Category is not included in the list');
    expect((await staff.moderator.client.get(base)).body).toMatchObject({ category: 'violation', rules: [{ id: ruleId }] });
    // Another category cites no rules.
    expect((await staff.moderator.client.put(base, { category: 'spam' })).body).toMatchObject({ category: 'spam', rules: [] });
  });

  it('lets owner, admin, moderator and a custom role with Manage Reports in; refuses users, missing tokens and scopes', async () => {
    const reader = createCustomRole(inst, { name: 'Report reader', permissions: PERMISSION.manageReports });
    const custom = await createUserWithRole(inst, 'reportreader', { customRoleId: reader });
    const other = createCustomRole(inst, { name: 'Blocks only', permissions: PERMISSION.manageBlocks });
    const outsider = await createUserWithRole(inst, 'blocksonly', { customRoleId: other });
    const id = r.aliceCarol;
    const methods: [string, string, unknown?][] = [
      ['GET', '/api/v1/admin/reports'],
      ['GET', `/api/v1/admin/reports/${id}`],
      ['PUT', `/api/v1/admin/reports/${id}`, { category: 'violation', rule_ids: [ruleId] }],
      ['POST', `/api/v1/admin/reports/${id}/assign_to_self`],
      ['POST', `/api/v1/admin/reports/${id}/unassign`],
      ['POST', `/api/v1/admin/reports/${id}/resolve`],
      ['POST', `/api/v1/admin/reports/${id}/reopen`],
    ];
    for (const [method, path, json] of methods) {
      for (const who of [staff.owner, staff.admin, staff.moderator, custom]) {
        const res = await who.client.request(method, path, json === undefined ? {} : { json });
        expect(res.status, `${who.username} ${method} ${path}: ${res.text}`).toBe(200);
      }
      for (const who of [staff.user, outsider]) {
        const res = await who.client.request(method, path, json === undefined ? {} : { json });
        expect([res.status, res.body], `${who.username} ${method} ${path}`).toEqual([403, { error: 'This action is not allowed' }]);
      }
      // Without a token Mastodon's admin API answers 403 as well; a bad token is a 401.
      expect((await inst.anon.request(method, path, json === undefined ? {} : { json })).status, `anonymous ${method} ${path}`).toBe(403);
      expect((await inst.anon.request(method, path, { token: 'not-a-token' })).status).toBe(401);
      // A token without the admin scope for it.
      const narrow = method === 'GET' ? 'read write admin:read:accounts' : 'read write admin:read';
      const res = await staff.owner.client.request(method, path, { token: inst.tokenFor(staff.owner, narrow), ...(json === undefined ? {} : { json }) });
      expect([res.status, res.body.error]).toEqual([403, 'This action is outside the authorized scopes']);
    }
    // The granular scopes are enough.
    const granular = inst.tokenFor(staff.moderator, 'admin:read:reports admin:write:reports');
    expect((await staff.moderator.client.post(`/api/v1/admin/reports/${id}/resolve`, undefined, { token: granular })).status).toBe(200);
    expect((await staff.moderator.client.post(`/api/v1/admin/reports/${id}/reopen`, undefined, { token: granular })).status).toBe(200);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    for (const id of ['123456789', 'nope']) {
      const res = await staff.owner.client.get(`/api/v1/admin/reports/${id}`);
      expect([res.status, res.body]).toEqual([404, { error: 'Record not found' }]);
      expect((await staff.owner.client.post(`/api/v1/admin/reports/${id}/resolve`)).status).toBe(404);
      expect((await staff.owner.client.put(`/api/v1/admin/reports/${id}`, { category: 'spam' })).status).toBe(404);
    }
  });

  it('is driven by the masto client', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: inst.tokenFor(staff.moderator, STAFF_SCOPES) });
    const open = await masto.v1.admin.reports.list({ targetAccountId: bob.accountId });
    expect(open.map((x) => x.id)).toEqual([r.carolBob, r.aliceBob]);
    const one = await masto.v1.admin.reports.$select(r.aliceBob).fetch();
    expect([one.targetAccount.id, one.targetAccount.username]).toEqual([bob.accountId, 'bob']);
    expect((await masto.v1.admin.reports.$select(r.aliceBob).assignToSelf()).assignedAccount?.id).toBe(staff.moderator.accountId);
    expect((await masto.v1.admin.reports.$select(r.aliceBob).unassign()).assignedAccount).toBeNull();
    expect((await masto.v1.admin.reports.$select(r.aliceBob).resolve()).actionTaken).toBe(true);
    expect((await masto.v1.admin.reports.list({ resolved: true })).map((x) => x.id)).toContain(r.aliceBob);
    expect((await masto.v1.admin.reports.$select(r.aliceBob).reopen()).actionTaken).toBe(false);
    // Paging follows the Link header.
    const pages: string[][] = [];
    // masto's parameter type leaves out `limit`, which Mastodon takes (and masto sends).
    const onePerPage = { limit: 1 } as unknown as Parameters<typeof masto.v1.admin.reports.list>[0];
    for await (const page of masto.v1.admin.reports.list(onePerPage)) if (page.length > 0) pages.push(page.map((x) => x.id));
    expect(pages).toEqual([[r.aliceCarol], [r.carolBob], [r.aliceBob]]);
  });

  it('hearth reports list|show|resolve|reopen, and bad input', async () => {
    const cli = async (...args: string[]) => {
      const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
      const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      try {
        const code = await main(['reports', ...args, '--data', inst.dataDir]);
        return { code, out: log.mock.calls.map((x) => x.join(' ')).join('\n'), err: err.mock.calls.map((x) => x.join(' ')).join('\n') };
      } finally {
        log.mockRestore();
        err.mockRestore();
      }
    };
    const list = await cli('list');
    expect(list.code).toBe(0);
    expect(list.out.split('\n').map((l) => l.split('\t').slice(0, 5))).toEqual([
      [r.aliceCarol, 'open', 'violation', 'alice', 'carol'],
      [r.carolBob, 'open', 'other', 'carol', 'bob'],
      [r.aliceBob, 'open', 'spam', 'alice', 'bob'],
    ]);
    const shown = await cli('show', '--id', r.aliceBob);
    expect(shown.out).toContain('reporter\talice');
    expect(shown.out).toContain(`status\t${bobStatus}\t`);
    expect((await cli('resolve', '--id', r.aliceBob, '--username', 'owner')).out).toBe(`resolved ${r.aliceBob}`);
    // The API sees what the command did.
    expect((await staff.owner.client.get(`/api/v1/admin/reports/${r.aliceBob}`)).body).toMatchObject({ action_taken: true, action_taken_by_account: { id: staff.owner.accountId } });
    expect((await cli('list', '--resolved')).out.split('\t')[0]).toBe(r.aliceBob);
    expect((await cli('reopen', r.aliceBob)).out).toBe(`reopened ${r.aliceBob}`);
    expect((await cli('resolve', r.carolBob)).code).toBe(0);
    expect((await staff.owner.client.get(`/api/v1/admin/reports/${r.carolBob}`)).body).toMatchObject({ action_taken: true, action_taken_by_account: null });
    expect(await cli('show', '--id', '123')).toMatchObject({ code: 1, err: 'hearth: no such report' });
    expect((await cli('resolve')).code).toBe(2);
    expect((await cli('frobnicate')).code).toBe(2);
    expect((await cli('list', '--limit', 'many')).code).toBe(2);
    expect((await cli('resolve', r.aliceBob, '--username', 'nobody')).code).toBe(1);
  });
});
