import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSION } from '../../api/util/permissions.js';
import { appToken } from '../accounts/helpers.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { createCustomRole, createStaff, createUserWithRole } from '../helpers/roles.js';
import { waitFor } from '../mail/smtp-sink.js';
import { verifySignature, WebhookReceiver } from './receiver.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhooks', () => {
  let inst: TestInstance;
  let receiver: WebhookReceiver;
  let staff: Record<'owner' | 'admin' | 'moderator' | 'user', TestUser>;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    inst = await startInstance({ registrations: 'approval' });
    staff = await createStaff(inst);
  });
  afterAll(async () => {
    await inst.close();
    await receiver.stop();
  });

  const count = () => inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM webhooks').get()?.n;
  const queued = () => inst.deps.db.query<{ id: string; attempts: number; next_attempt_at: number; last_error: string | null; body: string | null }>('SELECT * FROM webhook_deliveries').all();

  it('is managed by those who may manage webhooks (admins), with admin:read and admin:write', async () => {
    const create = await staff.admin.client.post('/api/v1/admin/webhooks', { url: `${receiver.url}/hook`, events: ['status.created'] });
    expect(create.status, create.text).toBe(200);
    const hook = create.body;
    expect(hook).toMatchObject({ url: `${receiver.url}/hook`, events: ['status.created'], enabled: true, template: null });
    expect(hook.secret).toMatch(/^[0-9a-f]{40}$/);
    expect(hook.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    for (const who of [staff.moderator, staff.user]) {
      const refused = await who.client.get('/api/v1/admin/webhooks');
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ error: 'This action is not allowed' });
      expect((await who.client.post(`/api/v1/admin/webhooks/${hook.id}/disable`)).status).toBe(403);
    }
    expect((await inst.anon.get('/api/v1/admin/webhooks')).status).toBe(403);
    const reader = inst.tokenFor(staff.admin, 'admin:read');
    expect((await staff.admin.client.get('/api/v1/admin/webhooks', { token: reader })).status).toBe(200);
    expect((await staff.admin.client.post('/api/v1/admin/webhooks', { url: receiver.url, events: ['status.created'] }, { token: reader })).status).toBe(403);
    expect((await staff.owner.client.get(`/api/v1/admin/webhooks/${hook.id}`)).body).toEqual(hook);

    const list = await staff.owner.client.get('/api/v1/admin/webhooks');
    expect(list.body.map((w: { id: string }) => w.id)).toEqual([hook.id]);
    const edited = await staff.admin.client.put(`/api/v1/admin/webhooks/${hook.id}`, { events: ['status.created', 'status.updated'] });
    expect(edited.body).toMatchObject({ id: hook.id, url: `${receiver.url}/hook`, events: ['status.created', 'status.updated'], secret: hook.secret });
    const removed = await staff.admin.client.delete(`/api/v1/admin/webhooks/${hook.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({});
    expect((await staff.admin.client.get(`/api/v1/admin/webhooks/${hook.id}`)).status).toBe(404);
    expect((await staff.admin.client.delete(`/api/v1/admin/webhooks/${hook.id}`)).status).toBe(404);
  });

  it('refuses invalid webhooks with every problem named, writing nothing', async () => {
    const before = count();
    const c = staff.admin.client;
    expect((await c.post('/api/v1/admin/webhooks', { events: ['status.created'] })).body.error).toBe("Validation failed: Url can't be blank");
    expect((await c.post('/api/v1/admin/webhooks', { url: 'ftp://example.test/x', events: [] })).body.error).toBe("Validation failed: Url is invalid, Events can't be blank");
    const unknown = await c.post('/api/v1/admin/webhooks', { url: receiver.url, events: ['status.created', 'status.exploded'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toBe('Validation failed: Events is invalid');
    expect((await c.post('/api/v1/admin/webhooks', { url: receiver.url, events: ['status.created'], template: '{"a": "{{object.id"}' })).body.error).toBe(
      'Validation failed: Template is invalid',
    );
    // Only events whose permission the staff member holds: a custom role with Manage Webhooks alone.
    const hooksOnly = createCustomRole(inst, { name: 'Hooks', permissions: PERMISSION.manageWebhooks });
    const clerk = await createUserWithRole(inst, 'clerk', { customRoleId: hooksOnly });
    const rights = await clerk.client.post('/api/v1/admin/webhooks', { url: receiver.url, events: ['account.created'] });
    expect(rights.status).toBe(422);
    expect(rights.body.error).toBe("Validation failed: Events cannot include events you don't have the rights to");
    expect(count()).toBe(before);
    // An edit is checked the same way, and changes nothing when refused.
    const hook = (await c.post('/api/v1/admin/webhooks', { url: receiver.url, events: ['status.created'] })).body;
    expect((await c.put(`/api/v1/admin/webhooks/${hook.id}`, { url: 'not a url' })).status).toBe(422);
    expect((await c.get(`/api/v1/admin/webhooks/${hook.id}`)).body.url).toBe(receiver.url);
    await c.delete(`/api/v1/admin/webhooks/${hook.id}`);
  });

  it('delivers signed payloads for accounts, statuses and reports, as Mastodon sends them', async () => {
    const events = ['account.created', 'account.approved', 'account.updated', 'report.created', 'status.created', 'status.updated'];
    const hook = (await staff.admin.client.post('/api/v1/admin/webhooks', { url: `${receiver.url}/all`, events })).body;
    receiver.received.length = 0;

    // A sign-up waiting for approval, then approved.
    const app = appToken(inst);
    const signUp = await inst.anon.post('/api/v1/accounts', { username: 'zoe', email: 'zoe@example.test', password: 'a long password', agreement: true, locale: 'en', reason: 'hi' }, { token: app.token });
    expect(signUp.status, signUp.text).toBe(200);
    const created = await waitFor(() => receiver.of('account.created')[0]);
    expect(created.path).toBe('/all');
    expect(created.headers['content-type']).toBe('application/json');
    expect(verifySignature(created, hook.secret)).toBe(true);
    expect(verifySignature(created, 'another secret')).toBe(false);
    expect(created.json).toEqual({ event: 'account.created', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/), object: expect.any(Object) });
    const zoeId = created.json.object.id;
    // The object is the Admin::Account.
    expect(created.json.object).toMatchObject({ username: 'zoe', email: 'zoe@example.test', approved: false, invite_request: 'hi', account: { id: zoeId, acct: 'zoe' } });
    expect((await staff.admin.client.post(`/api/v1/admin/accounts/${zoeId}/approve`)).status).toBe(200);
    const approved = await waitFor(() => receiver.of('account.approved')[0]);
    expect(approved.json.object).toMatchObject({ id: zoeId, approved: true });

    const status = (await staff.user.client.post('/api/v1/statuses', { status: 'Hello hooks' })).body;
    const posted = await waitFor(() => receiver.of('status.created').find((r) => r.json.object.id === status.id));
    expect(posted.json.object).toMatchObject({ id: status.id, content: '<p>Hello hooks</p>', account: { id: staff.user.accountId } });
    expect(verifySignature(posted, hook.secret)).toBe(true);
    await staff.user.client.put(`/api/v1/statuses/${status.id}`, { status: 'Hello hooks, edited' });
    const updated = await waitFor(() => receiver.of('status.updated')[0]);
    expect(updated.json.object).toMatchObject({ id: status.id, content: '<p>Hello hooks, edited</p>' });
    expect(updated.json.object.edited_at).not.toBeNull();
    await staff.user.client.patch('/api/v1/accounts/update_credentials', { display_name: 'Plain User' });
    const profile = await waitFor(() => receiver.of('account.updated').find((r) => r.json.object.id === staff.user.accountId));
    expect(profile.json.object.account.display_name).toBe('Plain User');
    // The approval sent only `account.approved`, as Mastodon's does: no `account.updated` for zoe.
    expect(receiver.of('account.updated').filter((r) => r.json.object.id === zoeId)).toEqual([]);

    const report = (await staff.user.client.post('/api/v1/reports', { account_id: staff.moderator.accountId, comment: 'hm', status_ids: [] })).body;
    const filed = await waitFor(() => receiver.of('report.created')[0]);
    expect(filed.json.object).toMatchObject({ id: report.id, comment: 'hm', account: { id: staff.user.accountId }, target_account: { id: staff.moderator.accountId } });
    // Nothing is left queued once answered.
    await waitFor(() => queued().length === 0);
    await staff.admin.client.delete(`/api/v1/admin/webhooks/${hook.id}`);
  });

  it('sends a disabled webhook nothing, not even what was queued for it', async () => {
    const hook = (await staff.admin.client.post('/api/v1/admin/webhooks', { url: `${receiver.url}/quiet`, events: ['status.created'] })).body;
    const disabled = await staff.admin.client.post(`/api/v1/admin/webhooks/${hook.id}/disable`);
    expect(disabled.body).toMatchObject({ id: hook.id, enabled: false });
    receiver.received.length = 0;
    await staff.user.client.post('/api/v1/statuses', { status: 'unheard' });
    await pause(300);
    expect(receiver.received).toEqual([]);
    expect(queued()).toEqual([]);
    expect((await staff.admin.client.post(`/api/v1/admin/webhooks/${hook.id}/enable`)).body.enabled).toBe(true);
    await staff.user.client.post('/api/v1/statuses', { status: 'heard' });
    const heard = await waitFor(() => receiver.received[0]);
    expect(heard.json.object.content).toBe('<p>heard</p>');
    // A request waiting for its retry when the webhook is disabled is dropped, not sent.
    receiver.answers = [503];
    await staff.user.client.post('/api/v1/statuses', { status: 'retry later' });
    await waitFor(() => queued()[0]?.attempts === 1);
    await staff.admin.client.post(`/api/v1/admin/webhooks/${hook.id}/disable`);
    inst.deps.db.query('UPDATE webhook_deliveries SET next_attempt_at = 0').run();
    await waitFor(() => queued().length === 0);
    expect(receiver.received).toHaveLength(2);
    await staff.admin.client.delete(`/api/v1/admin/webhooks/${hook.id}`);
  });

  it('retries with back-off from the durable queue, the same body signed with the secret of the moment; a 4xx ends it', async () => {
    const hook = (await staff.admin.client.post('/api/v1/admin/webhooks', { url: `${receiver.url}/flaky`, events: ['status.created'] })).body;
    receiver.received.length = 0;
    receiver.answers = [503];
    await staff.user.client.post('/api/v1/statuses', { status: 'try, try again' });
    await waitFor(() => receiver.received.length === 1 && queued()[0]?.attempts === 1);
    const [waiting] = queued();
    expect(waiting?.last_error).toBe('answered 503');
    expect(waiting?.next_attempt_at ?? 0).toBeGreaterThan(Date.now() + 10_000);

    const rotated = (await staff.admin.client.post(`/api/v1/admin/webhooks/${hook.id}/rotate_secret`)).body;
    expect(rotated.secret).toMatch(/^[0-9a-f]{40}$/);
    expect(rotated.secret).not.toBe(hook.secret);
    // Due now: the job scheduler sends it again (as it would after a restart).
    inst.deps.db.query('UPDATE webhook_deliveries SET next_attempt_at = 0').run();
    await waitFor(() => receiver.received.length === 2);
    const [first, second] = receiver.received;
    expect(second?.body).toBe(first?.body);
    expect(verifySignature(first!, hook.secret)).toBe(true);
    expect(verifySignature(second!, rotated.secret)).toBe(true);
    await waitFor(() => queued().length === 0);

    // An endpoint that will not take it (a 4xx but 401, 408, 429) is not asked again; a 401 is.
    receiver.answers = [410];
    await staff.user.client.post('/api/v1/statuses', { status: 'gone' });
    await waitFor(() => receiver.received.length === 3);
    await waitFor(() => queued().length === 0);
    receiver.answers = [401];
    await staff.user.client.post('/api/v1/statuses', { status: 'who are you' });
    await waitFor(() => queued()[0]?.attempts === 1);
    expect(queued()[0]?.last_error).toBe('answered 401');
    await staff.admin.client.delete(`/api/v1/admin/webhooks/${hook.id}`);
    // Deleting the webhook took its queue with it.
    expect(queued()).toEqual([]);
  });

  it('renders a template instead of the JSON payload', async () => {
    const template = '{"text": "New account: {{object.username}} ({{event}}) {{object.account.note}}", "missing": "{{object.nothing.here}}"}';
    const hook = (await staff.admin.client.post('/api/v1/admin/webhooks', { url: `${receiver.url}/chat`, events: ['account.created'], template })).body;
    expect(hook.template).toBe(template);
    receiver.received.length = 0;
    await inst.createUser('yann');
    const got = await waitFor(() => receiver.received[0]);
    expect(got.json).toEqual({ text: 'New account: yann (account.created) ', missing: '' });
    expect(verifySignature(got, hook.secret)).toBe(true);
    // Cleared with null.
    expect((await staff.admin.client.put(`/api/v1/admin/webhooks/${hook.id}`, { template: null })).body.template).toBeNull();
  });
});
