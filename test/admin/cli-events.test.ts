import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../api/cli.js';
import { appToken } from '../accounts/helpers.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { createCustomRole, createUserWithRole } from '../helpers/roles.js';
import { waitFor } from '../mail/smtp-sink.js';
import { closeSockets, openSocket } from '../streaming/helpers.js';
import { verifySignature, WebhookReceiver } from '../webhooks/receiver.js';
import { PERMISSION } from '../../api/util/permissions.js';

/** Runs `hearth …` in this process (with its own database connection, as another process); returns the exit code and what it printed. */
async function hearth(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const log = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
    stdout += `${parts.join(' ')}\n`;
  });
  const error = vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => {
    stderr += `${parts.join(' ')}\n`;
  });
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

/**
 * Changes made by `hearth accounts`, `hearth reports` and `hearth role` while the server runs reach
 * the server's listeners (the command records its events, the server's scheduler emits them): staff
 * notifications and their streaming, mail, webhooks. And the staff told of a report, by
 * notification and by mail, are the same people: those whose role may manage reports.
 */
describe('command-line changes and the running server', () => {
  let inst: TestInstance;
  let receiver: WebhookReceiver;
  let kim: TestUser;
  let secret: string;
  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    inst = await startInstance({ registrations: 'approval' });
    kim = await createUserWithRole(inst, 'kim', 'owner', { email: 'kim@example.test' });
    const hook = await kim.client.post('/api/v1/admin/webhooks', { url: receiver.url, events: ['account.approved', 'account.updated', 'report.updated'] });
    expect(hook.status, hook.text).toBe(200);
    secret = hook.body.secret as string;
  });
  afterEach(() => closeSockets());
  afterAll(async () => {
    await inst.close();
    await receiver.stop();
  });

  const cli = (...args: string[]) => hearth([...args, '--data', inst.dataDir]);
  const mail = () => inst.deps.db.query<{ kind: string; to_address: string }>('SELECT kind, to_address FROM mail_outbox ORDER BY id').all();
  const notificationsOf = async (user: TestUser, type: string) =>
    ((await user.client.get(`/api/v1/notifications?types[]=${type}`)).body as { type: string; account: { acct: string }; report?: { id: string } }[]);

  it('approving a sign-up notifies the staff (streamed), mails the user and sends the account.approved webhook', async () => {
    const app = appToken(inst);
    const res = await inst.anon.post('/api/v1/accounts', { username: 'lena', email: 'lena@example.test', password: 'correct horse battery', agreement: true, reason: 'hi' }, { token: app.token });
    expect(res.status, res.text).toBe(200);
    const socket = await openSocket(inst, kim.token);
    await socket.subscribe('user');

    const approved = await cli('accounts', 'approve', 'lena');
    expect(approved.code, approved.stderr).toBe(0);
    const streamed = await socket.next((e) => e.event === 'notification' && e.payload.type === 'admin.sign_up', 8000);
    expect(streamed.payload.account.acct).toBe('lena');
    expect((await notificationsOf(kim, 'admin.sign_up')).map((n) => n.account.acct)).toEqual(['lena']);
    await waitFor(() => mail().some((m) => m.kind === 'approved' && m.to_address === 'lena@example.test'));
    const hook = await waitFor(() => receiver.of('account.approved')[0]);
    expect(verifySignature(hook, secret)).toBe(true);
    expect(hook.json.object).toMatchObject({ username: 'lena', approved: true });
    // Replayed once: the events are gone from the table, and nothing is sent twice.
    await waitFor(() => inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM command_events').get()?.n === 0);
    expect(receiver.of('account.approved')).toHaveLength(1);
  });

  it('resolving a report sends report.updated; assigning a role sends account.updated', async () => {
    const sam = await createUserWithRole(inst, 'sam', 'user');
    const report = await sam.client.post('/api/v1/reports', { account_id: kim.accountId, comment: 'rude' });
    expect(report.status, report.text).toBe(200);
    expect((await cli('reports', 'resolve', '--id', report.body.id, '--username', 'kim')).code).toBe(0);
    const updated = await waitFor(() => receiver.of('report.updated').find((r) => r.json.object.id === report.body.id));
    expect(updated.json.object).toMatchObject({ action_taken: true, action_taken_by_account: { id: kim.accountId } });

    expect((await cli('role', 'assign', '--username', 'sam', '--role', 'moderator')).code).toBe(0);
    const changed = await waitFor(() => receiver.of('account.updated').find((r) => r.json.object.id === sam.accountId));
    expect(changed.json.object.role).toMatchObject({ name: 'Moderator' });
  });

  it('tells of a new report, by notification and by mail, exactly the staff who may manage reports (custom roles included)', async () => {
    const readerRole = createCustomRole(inst, { name: 'Report reader', permissions: PERMISSION.manageReports });
    const otherRole = createCustomRole(inst, { name: 'Blocks only', permissions: PERMISSION.manageBlocks });
    const reader = await createUserWithRole(inst, 'reader', { customRoleId: readerRole });
    const other = await createUserWithRole(inst, 'other', { customRoleId: otherRole });
    const dora = await createUserWithRole(inst, 'dora', 'user');
    const target = await createUserWithRole(inst, 'target', 'user');
    const before = mail().length;
    const filed = await dora.client.post('/api/v1/reports', { account_id: target.accountId, comment: 'spam' });
    expect(filed.status, filed.text).toBe(200);

    const mailed = await waitFor(() => {
      const rows = mail().slice(before).filter((m) => m.kind === 'new_report');
      return rows.length >= 3 && rows;
    });
    const notified: string[] = [];
    for (const [name, user] of [['kim', kim], ['reader', reader], ['other', other], ['dora', dora]] as const) {
      if ((await notificationsOf(user, 'admin.report')).some((n) => n.report?.id === filed.body.id)) notified.push(name);
    }
    // kim (owner), reader (custom role with Manage Reports) and sam (made a moderator above).
    expect(mailed.map((m) => m.to_address).sort()).toEqual(['kim@example.test', 'reader@example.test', 'sam@example.test']);
    expect(notified).toEqual(['kim', 'reader']);
  });
});
