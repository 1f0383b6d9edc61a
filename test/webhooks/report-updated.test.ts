import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { createStaff } from '../helpers/roles.js';
import { waitFor } from '../mail/smtp-sink.js';
import { verifySignature, WebhookReceiver } from './receiver.js';

/**
 * `report.updated`: staff changing a report through the admin API reaches the webhooks that
 * subscribe to it. Core's report handling (core/admin/reports.ts) emits `report.updated` after each
 * change; the webhooks subscribe to that event.
 */
describe('webhooks: report.updated', () => {
  let inst: TestInstance;
  let receiver: WebhookReceiver;
  let staff: Record<'owner' | 'admin' | 'moderator' | 'user', TestUser>;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    inst = await startInstance();
    staff = await createStaff(inst);
  });
  afterAll(async () => {
    await inst.close();
    await receiver.stop();
  });

  it('sends the Admin::Report as it is after the change', async () => {
    const hook = (await staff.admin.client.post('/api/v1/admin/webhooks', { url: receiver.url, events: ['report.updated'] })).body;
    const report = (await staff.user.client.post('/api/v1/reports', { account_id: staff.moderator.accountId, comment: 'again' })).body;
    expect(receiver.received).toEqual([]);
    const resolved = await staff.admin.client.post(`/api/v1/admin/reports/${report.id}/resolve`);
    expect(resolved.status, resolved.text).toBe(200);
    const got = await waitFor(() => receiver.of('report.updated')[0]);
    expect(verifySignature(got, hook.secret)).toBe(true);
    expect(got.json.object).toMatchObject({ id: report.id, action_taken: true, action_taken_by_account: { id: staff.admin.accountId } });
  });
});
