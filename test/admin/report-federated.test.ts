import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freePort } from '../federation/helpers.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { createStaff } from '../helpers/roles.js';
import { SmtpSink } from '../mail/smtp-sink.js';
import { verifySignature, WebhookReceiver } from '../webhooks/receiver.js';

type Federated = TestInstance & { origin: string; domain: string };

/** A federating instance on a loopback address, with the extra settings given (mail, here). */
async function federated(host: string, extra: Parameters<typeof startInstance>[0] = {}): Promise<Federated> {
  const port = await freePort(host);
  const origin = `http://${host}:${port}`;
  const inst = await startInstance({ bind: host, port, origin, federationAllowLoopback: true, ...extra });
  return Object.assign(inst, { origin, domain: `${host}:${port}` });
}

/**
 * Acceptance (issue 15): a report filed on another Hearth instance and forwarded to this one (a
 * Flag over real, signed federation on loopback) reaches this instance's admin API, its staff's
 * mail (a local SMTP server) and their `admin.report` notifications, and its webhooks.
 */
describe('a report federated from another instance', () => {
  let sink: SmtpSink;
  let receiver: WebhookReceiver;
  let here: Federated;
  let there: Federated;
  let staff: Record<'owner' | 'admin' | 'moderator' | 'user', TestUser>;
  let tom: TestUser;
  let rita: TestUser;

  beforeAll(async () => {
    sink = new SmtpSink();
    await sink.start();
    receiver = new WebhookReceiver();
    await receiver.start();
    here = await federated('127.0.0.3', { mail: { host: '127.0.0.1', port: sink.port } });
    there = await federated('127.0.0.2');
    staff = await createStaff(here);
    tom = await here.createUser('tom');
    rita = await there.createUser('rita');
  });
  afterAll(async () => {
    await there?.close();
    await here?.close();
    await receiver.stop();
    await sink.stop();
  });

  it('reaches the admin API, the staff mail and notifications, and the webhooks', async () => {
    const hook = (await staff.admin.client.post('/api/v1/admin/webhooks', { url: receiver.url, events: ['report.created'] })).body;
    const status = (await tom.client.post('/api/v1/statuses', { status: 'something rude', visibility: 'public' })).body;
    const tomThere = await there.app.federation?.resolveAccount(`tom@${here.domain}`);
    expect(tomThere?.id).toBeDefined();
    // Rita finds the status by its address (search resolves it over federation).
    const found = await rita.client.get(`/api/v2/search?resolve=true&type=statuses&q=${encodeURIComponent(status.uri)}`);
    const rude = (found.body as { statuses: { id: string; uri: string }[] }).statuses[0];
    expect(rude?.uri, found.text).toBe(status.uri);

    const filed = await rita.client.post('/api/v1/reports', { account_id: tomThere?.id, status_ids: [rude?.id], comment: 'please look', forward: true });
    expect(filed.status, filed.text).toBe(200);

    // The admin API of the reported account's instance (moderators handle reports).
    const report = await eventually(async () => {
      const res = await staff.moderator.client.get('/api/v1/admin/reports');
      return res.status === 200 ? (res.body as { id: string; comment: string; target_account: { id: string }; account: { domain: string | null }; statuses: { id: string }[] }[])[0] : undefined;
    });
    expect(report).toMatchObject({ comment: 'please look', target_account: { id: tom.accountId }, account: { domain: there.domain } });
    expect(report.statuses.map((s) => s.id)).toEqual([status.id]);
    expect((await staff.user.client.get('/api/v1/admin/reports')).status).toBe(403);

    // The staff's mail: every staff member who may handle reports, through the SMTP server.
    const mails = await eventually(() => {
      const found = sink.messages.filter((m) => m.subject === `New report for ${here.domain} (#${report.id})`);
      return found.length === 3 ? found : undefined;
    });
    expect(mails.flatMap((m) => m.to).sort()).toEqual(['admin@example.test', 'moderator@example.test', 'owner@example.test']);
    expect(mails[0]?.text).toContain(`@${there.domain}`);
    expect(mails[0]?.text).toContain('reported @tom (the report came from their server)');
    expect(mails[0]?.text).toContain('Comment: please look');
    expect(mails[0]?.text).toContain('Statuses attached: 1');

    // The staff's notifications.
    for (const member of [staff.owner, staff.admin, staff.moderator]) {
      const notes = (await member.client.get('/api/v1/notifications?types[]=admin.report')).body as { type: string; report: { id: string } }[];
      expect(notes.map((n) => [n.type, n.report.id])).toEqual([['admin.report', report.id]]);
    }
    expect((await staff.user.client.get('/api/v1/notifications?types[]=admin.report')).body).toEqual([]);

    // And the webhook for new reports, signed.
    const got = await eventually(() => receiver.of('report.created')[0]);
    expect(verifySignature(got, hook.secret)).toBe(true);
    expect(got.json.object).toMatchObject({ id: report.id, comment: 'please look', target_account: { id: tom.accountId } });
  });
});
