import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAccountByHandle } from '../../api/db/repos/accounts.js';
import { insertInvite } from '../../api/db/repos/invites.js';
import { countUsers } from '../../api/db/repos/users.js';
import { newId } from '../../api/util/ids.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { appToken } from './helpers.js';

const form = (username: string, extra: Record<string, unknown> = {}) => ({
  username,
  email: `${username}@example.test`,
  password: 'correct horse battery',
  agreement: true,
  locale: 'en',
  ...extra,
});

describe('registration when open', () => {
  let inst: TestInstance;
  let app: { token: string; appId: string };
  const signups: { approved: boolean }[] = [];
  beforeAll(async () => {
    inst = await startInstance({ registrations: 'open' });
    app = appToken(inst);
    inst.deps.events.on('user.signed_up', (e) => signups.push(e));
  });
  afterAll(async () => {
    await inst.close();
  });

  it('creates the user and answers a token that works at once', async () => {
    const res = await inst.anon.post('/api/v1/accounts', form('newbie', { locale: 'de' }), { token: app.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', scope: 'read write follow push', created_at: expect.any(Number) });
    expect(Math.abs(res.body.created_at - Date.now() / 1000)).toBeLessThan(60);
    const me = await inst.anon.get('/api/v1/accounts/verify_credentials', { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.acct).toBe('newbie');
    expect(signups.at(-1)).toMatchObject({ approved: true });
  });

  it('accepts a form body and Mastodon truthiness for agreement', async () => {
    const res = await inst.anon.post('/api/v1/accounts', undefined, {
      token: app.token,
      form: { username: 'formuser', email: 'formuser@example.test', password: 'correct horse battery', agreement: '1', locale: 'en' },
    });
    expect(res.status).toBe(200);
  });

  it('refuses a missing or false agreement, and reports every problem at once', async () => {
    const before = countUsers(inst.deps.db);
    for (const agreement of [undefined, false, 'false', '0', '']) {
      const res = await inst.anon.post('/api/v1/accounts', form('disagree', { agreement }), { token: app.token });
      expect(res.status, String(agreement)).toBe(422);
      expect(res.body.details.agreement).toEqual([{ error: 'ERR_ACCEPTED', description: 'must be accepted' }]);
    }
    const res = await inst.anon.post('/api/v1/accounts', { username: 'bad name!', email: 'not-an-email', password: 'short' }, { token: app.token });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.details).sort()).toEqual(['agreement', 'email', 'password', 'username']);
    expect(res.body.details.username[0].error).toBe('ERR_INVALID');
    expect(res.body.details.email[0].error).toBe('ERR_INVALID');
    expect(res.body.details.password[0].error).toBe('ERR_TOO_SHORT');
    // Rails' full messages in the order Mastodon's validators run (Devise's e-mail and password first).
    expect(res.body.error).toBe(
      'Validation failed: E-mail address is invalid, Password is too short (minimum is 8 characters), ' +
        'Username must contain only letters, numbers and underscores, Service agreement must be accepted',
    );
    const blank = await inst.anon.post('/api/v1/accounts', {}, { token: app.token });
    expect(blank.body.details.username[0].error).toBe('ERR_BLANK');
    expect(blank.body.details.password[0].error).toBe('ERR_BLANK');
    expect(countUsers(inst.deps.db)).toBe(before);
  });

  it('refuses a taken username or e-mail with ERR_TAKEN, writing nothing', async () => {
    await inst.createUser('taken');
    const before = countUsers(inst.deps.db);
    const name = await inst.anon.post('/api/v1/accounts', form('TAKEN', { email: 'other@example.test' }), { token: app.token });
    expect(name.status).toBe(422);
    expect(name.body.details.username).toEqual([{ error: 'ERR_TAKEN', description: 'has already been taken' }]);
    const email = await inst.anon.post('/api/v1/accounts', form('fresh', { email: 'Taken@Example.test' }), { token: app.token });
    expect(email.status).toBe(422);
    expect(email.body.details.email[0].error).toBe('ERR_TAKEN');
    const reserved = await inst.anon.post('/api/v1/accounts', form('admin'), { token: app.token });
    expect(reserved.body.details.username[0].error).toBe('ERR_RESERVED');
    expect(countUsers(inst.deps.db)).toBe(before);
    expect(findAccountByHandle(inst.deps.db, 'fresh', null)).toBeUndefined();
  });

  it('refuses wrong types with 422 and details', async () => {
    const res = await inst.anon.post('/api/v1/accounts', form('typed', { username: { a: 1 } }), { token: app.token });
    expect(res.status).toBe(422);
    expect(res.body.details.username[0].error).toBe('ERR_INVALID');
  });

  it('needs a token with write:accounts', async () => {
    expect((await inst.anon.post('/api/v1/accounts', form('notoken'))).status).toBe(401);
    expect((await inst.anon.post('/api/v1/accounts', form('badtoken'), { token: 'nope' })).status).toBe(401);
    const readOnly = appToken(inst, 'read');
    expect((await inst.anon.post('/api/v1/accounts', form('readonly'), { token: readOnly.token })).status).toBe(403);
    expect(findAccountByHandle(inst.deps.db, 'readonly', null)).toBeUndefined();
  });
});

describe('registration with approval', () => {
  let inst: TestInstance;
  let app: { token: string };
  beforeAll(async () => {
    inst = await startInstance({ registrations: 'approval' });
    app = appToken(inst);
  });
  afterAll(async () => {
    await inst.close();
  });

  it('needs a reason', async () => {
    const res = await inst.anon.post('/api/v1/accounts', form('noreason'), { token: app.token });
    expect(res.status).toBe(422);
    expect(res.body.details.reason[0].error).toBe('ERR_BLANK');
  });

  it('creates the user pending approval; the token is refused until then', async () => {
    const res = await inst.anon.post('/api/v1/accounts', form('hopeful', { reason: 'I am family' }), { token: app.token });
    expect(res.status).toBe(200);
    const me = await inst.anon.get('/api/v1/accounts/verify_credentials', { token: res.body.access_token });
    expect(me.status).toBe(403);
    expect(me.body.error).toBe('Your login is currently pending approval');
    const account = findAccountByHandle(inst.deps.db, 'hopeful', null)!;
    // Others cannot see the account yet either.
    expect((await inst.anon.get(`/api/v1/accounts/${account.id}`)).status).toBe(404);
    inst.deps.db.query('UPDATE users SET approved = 1 WHERE account_id = @account_id').run({ account_id: account.id });
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token: res.body.access_token })).status).toBe(200);
  });
});

describe('registration when closed', () => {
  let inst: TestInstance;
  let app: { token: string };
  let inviterId: string;
  const invite = (code: string, extra: { max_uses?: number | null; uses?: number; expires_at?: number | null } = {}) =>
    insertInvite(inst.deps.db, {
      id: newId(),
      user_id: inviterId,
      code,
      max_uses: extra.max_uses ?? null,
      uses: extra.uses ?? 0,
      autofollow: 0,
      comment: null,
      expires_at: extra.expires_at ?? null,
      created_at: Date.now(),
    });
  beforeAll(async () => {
    inst = await startInstance({ registrations: 'closed' });
    app = appToken(inst);
    inviterId = (await inst.createUser('inviter', { role: 'owner' })).userId;
  });
  afterAll(async () => {
    await inst.close();
  });

  it('answers 403 without an invite', async () => {
    const res = await inst.anon.post('/api/v1/accounts', form('outsider'), { token: app.token });
    expect(res.status).toBe(403);
    expect(res.body.error).toBeTypeOf('string');
    expect(findAccountByHandle(inst.deps.db, 'outsider', null)).toBeUndefined();
  });

  it('accepts a valid invite code, approved at once, and counts its use', async () => {
    invite('family-2024', { max_uses: 2 });
    const res = await inst.anon.post('/api/v1/accounts', form('cousin', { invite_code: 'family-2024' }), { token: app.token });
    expect(res.status).toBe(200);
    expect((await inst.anon.get('/api/v1/accounts/verify_credentials', { token: res.body.access_token })).status).toBe(200);
    const row = inst.deps.db.query<{ uses: number }>("SELECT uses FROM invites WHERE code = 'family-2024'").get();
    expect(row?.uses).toBe(1);
    const user = inst.deps.db.query<{ invite_id: string | null }>("SELECT invite_id FROM users WHERE email = 'cousin@example.test'").get();
    expect(user?.invite_id).not.toBeNull();
  });

  it('refuses used-up, expired and unknown invites with 403', async () => {
    invite('used-up', { max_uses: 1, uses: 1 });
    invite('expired', { expires_at: Date.now() - 1000 });
    for (const code of ['used-up', 'expired', 'no-such-code']) {
      const res = await inst.anon.post('/api/v1/accounts', form(`via_${code.replace(/-/g, '_')}`, { invite_code: code }), { token: app.token });
      expect(res.status, code).toBe(403);
    }
  });

  it('does not spend an invite on a sign-up that fails validation', async () => {
    invite('careful', { max_uses: 1 });
    const res = await inst.anon.post('/api/v1/accounts', form('careful', { invite_code: 'careful', agreement: false }), { token: app.token });
    expect(res.status).toBe(422);
    expect(inst.deps.db.query<{ uses: number }>("SELECT uses FROM invites WHERE code = 'careful'").get()?.uses).toBe(0);
  });
});
