import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { post } from './helpers.js';

describe('admin.report notifications', () => {
  let inst: TestInstance;
  let owner: TestUser;
  let moderator: TestUser;
  let member: TestUser;
  let reporter: TestUser;
  let troll: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    owner = await inst.createUser('owner', { role: 'owner' });
    moderator = await inst.createUser('mod', { role: 'moderator' });
    member = await inst.createUser('member');
    reporter = await inst.createUser('reporter');
    troll = await inst.createUser('troll');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('Notifications are created for new reports (staff)', async () => {
    const status = await post(troll, 'something rude');
    const res = await reporter.client.post('/api/v1/reports', { account_id: troll.accountId, status_ids: [status.id], comment: 'rude' });
    expect(res.status, res.text).toBe(200);
    const reportId = res.body.id;

    for (const staff of [owner, moderator]) {
      const list = await staff.client.get('/api/v1/notifications?types[]=admin.report');
      expect(list.status).toBe(200);
      expect(list.body).toHaveLength(1);
      expect(list.body[0]).toMatchObject({ type: 'admin.report', account: { id: reporter.accountId }, report: { id: reportId, comment: 'rude' } });
      expect(list.body[0].report.target_account.id).toBe(troll.accountId);
      expect(list.body[0].report.status_ids).toEqual([status.id]);

      const grouped = await staff.client.get('/api/v2/notifications?types[]=admin.report');
      expect(grouped.status).toBe(200);
      expect(grouped.body.notification_groups).toHaveLength(1);
      expect(grouped.body.notification_groups[0]).toMatchObject({ type: 'admin.report', report: { id: reportId } });
    }
    // Users who are not staff are not told.
    expect((await member.client.get('/api/v1/notifications?types[]=admin.report')).body).toEqual([]);
    expect((await troll.client.get('/api/v1/notifications?types[]=admin.report')).body).toEqual([]);
  });
});
