import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventMap } from '../../api/core/events.js';
import { addRule } from '../../api/core/instance/rules.js';
import { staffToNotifyOfReport } from '../../api/core/reports/reports.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { count, follow, post, seedRemoteAccount } from '../suggestions/helpers.js';

describe('reports', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let admin: TestUser;
  let moderator: TestUser;
  let bobPublic: string;
  let bobPrivate: string;
  let carolPublic: string;
  let ruleId: string;
  const events: EventMap['report.created'][] = [];

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    carol = await inst.createUser('carol');
    admin = await inst.createUser('admin', { role: 'admin' });
    moderator = await inst.createUser('mod', { role: 'moderator' });
    bobPublic = await post(bob.client, 'buy my stuff');
    bobPrivate = await post(bob.client, 'followers only', { visibility: 'private' });
    carolPublic = await post(carol.client, 'innocent');
    ruleId = addRule(inst.deps, { text: 'No spam' }).id;
    inst.deps.events.on('report.created', (e) => events.push(e));
  });
  afterAll(async () => {
    await inst.close();
  });

  it('files a report and answers the Report entity; report.created is emitted', async () => {
    const res = await alice.client.post('/api/v1/reports', { account_id: bob.accountId, status_ids: [bobPublic], comment: 'Spam account', category: 'spam' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(String),
      action_taken: false,
      action_taken_at: null,
      category: 'spam',
      comment: 'Spam account',
      forwarded: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      status_ids: [bobPublic],
      collection_ids: [],
      rule_ids: null,
      target_account: expect.objectContaining({ id: bob.accountId, username: 'bob' }),
    });
    expect(events.at(-1)).toEqual({ reportId: res.body.id, accountId: alice.accountId, targetAccountId: bob.accountId });
  });

  it('the category defaults to other; form bodies with status_ids[] work', async () => {
    const res = await alice.client.post('/api/v1/reports', undefined, {
      form: { account_id: carol.accountId, 'status_ids[]': [carolPublic], comment: '' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ category: 'other', comment: '', status_ids: [carolPublic], rule_ids: null });
  });

  it('rule_ids make the category violation, whatever category was asked', async () => {
    const res = await alice.client.post('/api/v1/reports', { account_id: bob.accountId, category: 'spam', rule_ids: [ruleId] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ category: 'violation', rule_ids: [ruleId], status_ids: [] });
  });

  it('a violation report must cite existing rules: otherwise 422 and nothing written', async () => {
    const before = count(inst, 'reports');
    for (const body of [
      { account_id: bob.accountId, category: 'violation' },
      { account_id: bob.accountId, category: 'violation', rule_ids: ['424242'] },
      { account_id: bob.accountId, rule_ids: [ruleId, '424242'] },
    ]) {
      const res = await alice.client.post('/api/v1/reports', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBe('Validation failed: Rule ids does not reference valid rules');
    }
    expect(count(inst, 'reports')).toBe(before);
  });

  it('an unknown category is 422 and writes nothing', async () => {
    const before = count(inst, 'reports');
    const res = await alice.client.post('/api/v1/reports', { account_id: bob.accountId, category: 'rude' });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('Validation failed: Category is not included in the list');
    expect(count(inst, 'reports')).toBe(before);
  });

  it('the comment is at most 1000 characters: longer is 422 and writes nothing', async () => {
    const before = count(inst, 'reports');
    const long = await alice.client.post('/api/v1/reports', { account_id: bob.accountId, comment: 'é'.repeat(1001) });
    expect(long.status).toBe(422);
    expect(long.body.error).toBe('Validation failed: Comment is too long (maximum is 1000 characters)');
    expect(count(inst, 'reports')).toBe(before);
    expect((await alice.client.post('/api/v1/reports', { account_id: bob.accountId, comment: 'é'.repeat(1000) })).status).toBe(200);
  });

  it("statuses must be the reported account's and visible to the reporter: otherwise 404 and nothing written", async () => {
    const before = count(inst, 'reports');
    const someoneElses = await alice.client.post('/api/v1/reports', { account_id: bob.accountId, status_ids: [bobPublic, carolPublic] });
    expect(someoneElses.status).toBe(404);
    expect(someoneElses.body.error).toBe('Record not found');
    const hidden = await alice.client.post('/api/v1/reports', { account_id: bob.accountId, status_ids: [bobPrivate] });
    expect(hidden.status).toBe(404);
    expect((await alice.client.post('/api/v1/reports', { account_id: bob.accountId, status_ids: ['999999999'] })).status).toBe(404);
    expect((await alice.client.post('/api/v1/reports', { account_id: bob.accountId, status_ids: ['junk'] })).status).toBe(404);
    expect(count(inst, 'reports')).toBe(before);
    // Once alice follows bob, his followers-only status is hers to report.
    await follow(alice.client, bob.accountId);
    const visible = await alice.client.post('/api/v1/reports', { account_id: bob.accountId, status_ids: [bobPrivate] });
    expect(visible.status).toBe(200);
    expect(visible.body.status_ids).toEqual([bobPrivate]);
  });

  it('an unknown account is 404, a missing account_id 400; nothing written', async () => {
    const before = count(inst, 'reports');
    expect((await alice.client.post('/api/v1/reports', { account_id: '999999999' })).status).toBe(404);
    expect((await alice.client.post('/api/v1/reports', { account_id: 'nope' })).status).toBe(404);
    const missing = await alice.client.post('/api/v1/reports', { comment: 'who?' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('param is missing or the value is empty or invalid: account_id');
    expect(count(inst, 'reports')).toBe(before);
  });

  it('forward is kept for remote accounts only', async () => {
    const remote = seedRemoteAccount(inst, 'spammer', 'spam.example');
    const forwarded = await alice.client.post('/api/v1/reports', { account_id: remote, forward: true });
    expect(forwarded.body.forwarded).toBe(true);
    expect(inst.deps.db.query<{ forwarded: number }>('SELECT forwarded FROM reports WHERE id = @id').get({ id: forwarded.body.id })?.forwarded).toBe(1);
    const notForwarded = await alice.client.post('/api/v1/reports', { account_id: remote, forward: 'false' });
    expect(notForwarded.body.forwarded).toBe(false);
    const local = await alice.client.post('/api/v1/reports', { account_id: carol.accountId, forward: true });
    expect(local.body.forwarded).toBe(false);
  });

  it('staff to notify: owner, admins and moderators, unless another report about the account is still open', async () => {
    const target = await inst.createUser('target');
    const first = await alice.client.post('/api/v1/reports', { account_id: target.accountId });
    expect(staffToNotifyOfReport(inst.deps, first.body.id).sort()).toEqual([admin.accountId, moderator.accountId].sort());
    const second = await carol.client.post('/api/v1/reports', { account_id: target.accountId });
    expect(staffToNotifyOfReport(inst.deps, second.body.id)).toEqual([]);
    expect(staffToNotifyOfReport(inst.deps, '123')).toEqual([]);
  });

  it('needs a user token with write:reports (401 without, 403 otherwise) and writes nothing when refused', async () => {
    const before = count(inst, 'reports');
    expect((await inst.anon.post('/api/v1/reports', { account_id: bob.accountId })).status).toBe(401);
    const readOnly = inst.tokenFor(alice, 'read write:statuses');
    expect((await alice.client.post('/api/v1/reports', { account_id: bob.accountId }, { token: readOnly })).status).toBe(403);
    expect(count(inst, 'reports')).toBe(before);
    const scoped = inst.tokenFor(alice, 'write:reports');
    expect((await alice.client.post('/api/v1/reports', { account_id: bob.accountId }, { token: scoped })).status).toBe(200);
  });
});
