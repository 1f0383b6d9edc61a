import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../api/cli.js';
import { issueToken } from '../../api/core/oauth/tokens.js';
import { appToken } from '../accounts/helpers.js';
import { Browser } from '../helpers/browser.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { linkIn, SmtpSink, waitFor } from './smtp-sink.js';

const form = (username: string, extra: Record<string, unknown> = {}) => ({
  username,
  email: `${username}@example.test`,
  password: 'correct horse battery',
  agreement: true,
  locale: 'en',
  reason: 'I knit',
  ...extra,
});

interface MailRowLite {
  state: string;
  attempts: number;
  next_attempt_at: number | null;
  last_error: string | null;
}

describe('mail through an SMTP server', () => {
  let sink: SmtpSink;
  let inst: TestInstance;
  const u = {} as Record<'owner' | 'admin' | 'mod' | 'dave', TestUser>;

  beforeAll(async () => {
    sink = new SmtpSink();
    await sink.start();
    inst = await startInstance({
      registrations: 'approval',
      mail: { host: '127.0.0.1', port: sink.port, user: 'hearth-mailer', password: 'smtp secret', from: 'Hearth <hearth@example.test>' },
    });
    u.owner = await inst.createUser('owner', { role: 'owner', scopes: 'read write admin:read admin:write' });
    u.admin = await inst.createUser('admin', { role: 'admin', scopes: 'read write admin:read admin:write' });
    u.mod = await inst.createUser('mod', { role: 'moderator' });
    u.dave = await inst.createUser('dave');
  });
  afterAll(async () => {
    await inst.close();
    await sink.stop();
  });

  const row = (to: string) => inst.deps.db.query<MailRowLite>('SELECT * FROM mail_outbox WHERE to_address = ? ORDER BY id DESC LIMIT 1').get(to);

  it('mails a sign-up its confirmation link; its token works once the address is confirmed', async () => {
    const app = appToken(inst);
    const signUp = await inst.anon.post('/api/v1/accounts', form('newbie'), { token: app.token });
    expect(signUp.status, signUp.text).toBe(200);
    const token = signUp.body.access_token as string;
    const refused = await inst.anon.get('/api/v1/accounts/verify_credentials', { token });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('Your login is missing a confirmed e-mail address');
    expect((await inst.anon.get('/api/v1/emails/check_confirmation', { token })).body).toBe(false);

    const mail = await waitFor(() => sink.to('newbie@example.test')[0]);
    expect(mail.from).toBe('hearth@example.test');
    expect(mail.subject).toBe(`Confirm your e-mail address for ${new URL(inst.url).host}`);
    expect(mail.text).toContain('Hello @newbie,');
    const link = linkIn(mail.text, `${inst.url}/auth/confirmation?confirmation_token=`);
    // The staff hear of the pending sign-up only once its address is confirmed.
    expect(sink.to('owner@example.test').filter((m) => m.subject.includes('up for review'))).toEqual([]);

    const browser = new Browser(inst.url);
    const page = await browser.get(link.slice(inst.url.length));
    expect(page.status).toBe(200);
    expect(page.text).toContain('Your e-mail address is confirmed');
    expect((await inst.anon.get('/api/v1/emails/check_confirmation', { token })).body).toBe(true);
    // Confirmed, but waiting for approval now.
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token })).body.error).toBe('Your login is currently pending approval');
    // A link works once.
    expect((await browser.get(link.slice(inst.url.length))).status).toBe(404);
    expect(row('newbie@example.test')).toMatchObject({ state: 'sent', attempts: 1 });
  });

  it('tells the staff who approve sign-ups that one waits, and the user when it is approved', async () => {
    const reviews = await waitFor(() => {
      const found = sink.messages.filter((m) => m.subject.includes('up for review') && m.subject.endsWith(': @newbie'));
      return found.length === 3 ? found : undefined;
    });
    // Owner, admin and moderator may manage users; dave may not.
    expect(reviews.flatMap((m) => m.to).sort()).toEqual(['admin@example.test', 'mod@example.test', 'owner@example.test']);
    expect(reviews[0]?.text).toContain('E-mail: newbie@example.test');
    expect(reviews[0]?.text).toContain('Reason given: I knit');

    const accountId = inst.deps.db.query<{ id: string }>("SELECT id FROM accounts WHERE username = 'newbie'").get()?.id ?? '';
    const approved = await u.admin.client.post(`/api/v1/admin/accounts/${accountId}/approve`);
    expect(approved.status, approved.text).toBe(200);
    const mail = await waitFor(() => sink.to('newbie@example.test').find((m) => m.subject.includes('was approved')));
    expect(mail.text).toContain(`you can sign in and start using it now, in any Mastodon app, at ${inst.url}`);
  });

  it('sends the link again, to a new address if asked, only for the app the user signed up with', async () => {
    const app = appToken(inst);
    const signUp = await inst.anon.post('/api/v1/accounts', form('second'), { token: app.token });
    const token = signUp.body.access_token as string;
    const first = await waitFor(() => sink.to('second@example.test')[0]);
    const firstLink = linkIn(first.text, `${inst.url}/auth/confirmation`);

    // Another app's token for the same user, and an app-only token, may not ask.
    const other = appToken(inst);
    const userId = inst.deps.db.query<{ id: string }>("SELECT u.id FROM users u JOIN accounts a ON a.id = u.account_id WHERE a.username = 'second'").get()?.id ?? '';
    const foreign = issueToken(inst.deps, { applicationId: other.appId, userId, scopes: ['write'] }).accessToken;
    const wrongApp = await inst.anon.post('/api/v1/emails/confirmations', {}, { token: foreign });
    expect(wrongApp.status).toBe(403);
    expect(wrongApp.body.error).toBe('This method is only available to the application the user originally signed-up with');
    expect((await inst.anon.post('/api/v1/emails/confirmations', {}, { token: app.token })).status).toBe(403);
    // Bad addresses change nothing.
    expect((await inst.anon.post('/api/v1/emails/confirmations', { email: 'not an address' }, { token })).status).toBe(422);
    expect((await inst.anon.post('/api/v1/emails/confirmations', { email: 'dave@example.test' }, { token })).body.error).toBe('Validation failed: Email has already been taken');

    const again = await inst.anon.post('/api/v1/emails/confirmations', { email: 'second-new@example.test' }, { token });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual({});
    const moved = await waitFor(() => sink.to('second-new@example.test')[0]);
    // The earlier link was replaced by the new one.
    const browser = new Browser(inst.url);
    expect((await browser.get(firstLink.slice(inst.url.length))).status).toBe(404);
    expect((await browser.get(linkIn(moved.text, inst.url).slice(inst.url.length))).status).toBe(200);
    expect(inst.deps.db.query<{ email: string }>('SELECT email FROM users WHERE id = ?').get(userId)?.email).toBe('second-new@example.test');
    const done = await inst.anon.post('/api/v1/emails/confirmations', {}, { token });
    expect(done.status).toBe(403);
    expect(done.body.error).toBe('This method is only available while the e-mail is awaiting confirmation');
  });

  it('mails a new report to the staff who handle reports, once while the account has an open report', async () => {
    sink.messages.length = 0;
    expect((await u.dave.client.post('/api/v1/reports', { account_id: u.mod.accountId, comment: 'rude words', category: 'other' })).status).toBe(200);
    const reports = await waitFor(() => {
      const found = sink.messages.filter((m) => m.subject.startsWith('New report for'));
      return found.length === 3 ? found : undefined;
    });
    expect(reports.flatMap((m) => m.to).sort()).toEqual(['admin@example.test', 'mod@example.test', 'owner@example.test']);
    expect(reports[0]?.text).toContain('@dave reported @mod.');
    expect(reports[0]?.text).toContain('Comment: rude words');
    // A second report about the same account while the first is open: the staff already know.
    expect((await u.dave.client.post('/api/v1/reports', { account_id: u.mod.accountId })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.messages.filter((m) => m.subject.startsWith('New report for'))).toHaveLength(3);
  });

  it('logs in to the SMTP server with the configured user', () => {
    expect(sink.logins.length).toBeGreaterThan(0);
    expect(sink.logins.every((l) => l.user === 'hearth-mailer' && l.pass === 'smtp secret')).toBe(true);
  });

  it('retries while the server cannot take mail, and gives up when it refuses for good', async () => {
    sink.refuse = '451 4.3.0 try again later';
    const attempts = sink.attempts;
    const browser = new Browser(inst.url);
    await browser.submit(await browser.get('/auth/password/new'), { email: 'dave@example.test' });
    await waitFor(() => sink.attempts > attempts && row('dave@example.test')?.attempts === 1);
    const waiting = row('dave@example.test');
    expect(waiting).toMatchObject({ state: 'queued', attempts: 1 });
    expect(waiting?.last_error).toContain('451');
    expect(waiting?.next_attempt_at ?? 0).toBeGreaterThan(Date.now() + 30_000);
    // Due now: the job scheduler sends it (as it would after a restart).
    sink.refuse = null;
    inst.deps.db.query("UPDATE mail_outbox SET next_attempt_at = 0 WHERE state = 'queued'").run();
    const mail = await waitFor(() => sink.to('dave@example.test').find((m) => m.subject.startsWith('Reset your password')));
    expect(mail.text).toContain('/auth/password/edit?reset_password_token=');
    await waitFor(() => row('dave@example.test')?.state === 'sent');
    expect(row('dave@example.test')?.attempts).toBe(2);

    sink.refuse = '550 5.1.1 mailbox unavailable';
    const app = appToken(inst);
    await inst.anon.post('/api/v1/accounts', form('bounce'), { token: app.token });
    await waitFor(() => row('bounce@example.test')?.state === 'failed');
    expect(row('bounce@example.test')?.last_error).toContain('550');
    sink.refuse = null;
  });

  it('shows the owner the outbox, newest first, and nobody else', async () => {
    const res = await u.owner.client.get('/api/hearth/mail?limit=2');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.body[0]).toMatchObject({ kind: 'confirmation', to: 'bounce@example.test', state: 'failed' });
    expect(Object.keys(res.body[0]).sort()).toEqual(['attempts', 'body', 'created_at', 'id', 'kind', 'last_error', 'sent_at', 'state', 'subject', 'to']);
    expect(res.headers.get('link')).toContain('rel="next"');
    const next = await u.owner.client.get(`/api/hearth/mail?limit=2&max_id=${res.body[1].id}`);
    expect(BigInt(next.body[0].id)).toBeLessThan(BigInt(res.body[1].id));
    for (const who of [u.admin, u.dave]) expect((await who.client.get('/api/hearth/mail')).status).toBe(403);
    expect((await inst.anon.get('/api/hearth/mail')).status).toBe(401);
  });
});

describe('password reset', () => {
  let sink: SmtpSink;
  let inst: TestInstance;
  let erin: TestUser;

  beforeAll(async () => {
    sink = new SmtpSink();
    await sink.start();
    inst = await startInstance({ mail: { host: '127.0.0.1', port: sink.port } });
    erin = await inst.createUser('erin');
  });
  afterAll(async () => {
    await inst.close();
    await sink.stop();
  });

  it('mails a link that sets a new password once, and signs erin out of every app', async () => {
    const browser = new Browser(inst.url);
    const login = await browser.get('/auth/sign_in');
    expect(login.text).toContain('href="/auth/password/new"');
    const asked = await browser.submit(await browser.get('/auth/password/new'), { email: 'ERIN@example.test' });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('a link to choose a new password is on its way');
    const mail = await waitFor(() => sink.to('erin@example.test')[0]);
    // The default sender: hearth@ the instance's host.
    expect(mail.from).toBe('hearth@127.0.0.1');
    const link = linkIn(mail.text, `${inst.url}/auth/password/edit?reset_password_token=`);

    const editForm = await browser.get(link.slice(inst.url.length));
    expect(editForm.status).toBe(200);
    const mismatch = await browser.submit(editForm, { password: 'a new long password', password_confirmation: 'something else' });
    expect(mismatch.status).toBe(422);
    expect(mismatch.text).toContain('Password confirmation doesn&#39;t match Password');
    const short = await browser.submit(editForm, { password: 'short', password_confirmation: 'short' });
    expect(short.status).toBe(422);
    // Nothing changed so far: the old token still works.
    expect((await erin.client.get('/api/v1/accounts/verify_credentials')).status).toBe(200);

    const done = await browser.submit(editForm, { password: 'a new long password', password_confirmation: 'a new long password' });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Your password is changed');
    expect((await erin.client.get('/api/v1/accounts/verify_credentials')).status).toBe(401);
    expect((await browser.get(link.slice(inst.url.length))).status).toBe(404);
    const signIn = await browser.submit(await browser.get('/auth/sign_in'), { login: 'erin', password: 'a new long password' });
    expect(signIn.text).toContain('You are signed in');
    // A forged form changes nothing.
    const forged = await new Browser(inst.url).request('POST', '/auth/password/edit', new URLSearchParams({ reset_password_token: 'x', password: 'another long one', password_confirmation: 'another long one', csrf_token: 'forged' }));
    expect(forged.status).toBe(403);
  });

  it('answers the same for an address without a login, and mails at most one link every five minutes', async () => {
    const browser = new Browser(inst.url);
    const before = sink.messages.length;
    const unknown = await browser.submit(await browser.get('/auth/password/new'), { email: 'nobody@example.test' });
    expect(unknown.status).toBe(200);
    expect(unknown.text).toContain('a link to choose a new password is on its way');
    await browser.submit(await browser.get('/auth/password/new'), { email: 'erin@example.test' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sink.messages.length).toBe(before);
    expect((await browser.get('/auth/password/edit?reset_password_token=made-up')).status).toBe(404);
  });
});

/** Runs `hearth …` in this process; returns the exit code and what it printed. */
async function hearth(args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const log = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
    stdout += `${parts.join(' ')}\n`;
  });
  const error = vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => {
    stdout += `${parts.join(' ')}\n`;
  });
  try {
    return { code: await main(args), stdout };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe('mail without an SMTP server', () => {
  let inst: TestInstance;
  const u = {} as Record<'owner' | 'mod' | 'frank', TestUser>;

  beforeAll(async () => {
    inst = await startInstance({ registrations: 'open' });
    u.owner = await inst.createUser('owner', { role: 'owner' });
    u.mod = await inst.createUser('mod', { role: 'moderator' });
    u.frank = await inst.createUser('frank');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('confirms sign-ups at once, keeps every message for the owner, and nothing fails', async () => {
    const app = appToken(inst);
    const signUp = await inst.anon.post('/api/v1/accounts', form('walkin'), { token: app.token });
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token: signUp.body.access_token })).status).toBe(200);
    expect((await u.frank.client.post('/api/v1/reports', { account_id: u.mod.accountId, comment: 'spam!' })).status).toBe(200);
    const browser = new Browser(inst.url);
    expect((await browser.submit(await browser.get('/auth/password/new'), { email: 'frank@example.test' })).status).toBe(200);

    const res = await u.owner.client.get('/api/hearth/mail');
    expect(res.status).toBe(200);
    const listed = res.body.map((m: { kind: string; to: string; state: string }) => [m.kind, m.to, m.state]);
    expect(listed[0]).toEqual(['password_reset', 'frank@example.test', 'kept']);
    expect(listed.slice(1).sort()).toEqual([
      ['new_report', 'mod@example.test', 'kept'],
      ['new_report', 'owner@example.test', 'kept'],
    ]);
    expect(res.body[0].body).toContain(`${inst.url}/auth/password/edit?reset_password_token=`);
    expect(res.body[0].sent_at).toBeNull();
  });

  it('prints the kept mail with `hearth mail list`', async () => {
    const out = await hearth(['mail', 'list', '--data', inst.dataDir]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('To: owner@example.test');
    expect(out.stdout).toContain('To: mod@example.test');
    expect(out.stdout).toContain('Subject: New report for');
    expect(out.stdout).toContain('/auth/password/edit?reset_password_token=');
    // Oldest first: the reset link, written last, comes last.
    expect(out.stdout.indexOf('owner@example.test')).toBeLessThan(out.stdout.indexOf('frank@example.test'));
    const latest = await hearth(['mail', 'list', '--data', inst.dataDir, '--limit', '1']);
    expect(latest.stdout).toContain('To: frank@example.test');
    expect(latest.stdout).not.toContain('New report');
    const reports = await hearth(['mail', 'list', '--data', inst.dataDir, '--state', 'sent']);
    expect(reports.stdout.trim()).toBe('(no mail)');
    expect((await hearth(['mail', 'send', '--data', inst.dataDir])).code).toBe(2);
    expect((await hearth(['mail', 'list', '--data', inst.dataDir, '--limit', 'lots'])).code).toBe(2);
  });
});
