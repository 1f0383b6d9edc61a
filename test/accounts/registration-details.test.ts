import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAccountByHandle } from '../../api/db/repos/accounts.js';
import { countUsers, findUserByAccountId } from '../../api/db/repos/users.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { appToken } from './helpers.js';

const valid = { email: 'someone@example.test', password: 'correct horse battery', agreement: true, locale: 'en' };

/**
 * Sign-up errors carry the `details` Mastodon's ValidationErrorFormatter gives: every validator
 * of the User, its Account and its invite request runs, so one parameter can fail several rules
 * at once, and `error` lists Rails' full messages in the validators' order.
 */
describe('registration error details', () => {
  let inst: TestInstance;
  let token: string;
  const signUp = (body: Record<string, unknown>) => inst.anon.post('/api/v1/accounts', body, { token });

  beforeAll(async () => {
    inst = await startInstance({ registrations: 'approval' });
    token = appToken(inst).token;
    await inst.createUser('taken', { email: 'taken@example.test' });
  });
  afterAll(async () => {
    await inst.close();
  });

  it('a username can fail several rules at once, each listed in order', async () => {
    const before = countUsers(inst.deps.db);
    const res = await signUp({ ...valid, username: 'x-'.repeat(16), reason: 'family' });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual({
      username: [
        { error: 'ERR_INVALID', description: 'must contain only letters, numbers and underscores' },
        { error: 'ERR_TOO_LONG', description: 'is too long (maximum is 30 characters)' },
      ],
    });
    expect(res.body.error).toBe('Validation failed: Username must contain only letters, numbers and underscores, Username is too long (maximum is 30 characters)');
    // Any case of a name someone holds is taken; a reserved name is reserved.
    const both = await signUp({ ...valid, username: 'TAKEN', reason: 'family' });
    expect(both.body.details.username).toEqual([{ error: 'ERR_TAKEN', description: 'has already been taken' }]);
    const reserved = await signUp({ ...valid, username: 'admin', reason: 'family' });
    expect(reserved.body.details.username).toEqual([{ error: 'ERR_RESERVED', description: 'is reserved' }]);
    expect(countUsers(inst.deps.db)).toBe(before);
  });

  it('an e-mail address can be taken and malformed at once; a blank one is only blank', async () => {
    const res = await signUp({ ...valid, username: 'fresh', email: 'TAKEN@example.test', reason: 'family' });
    expect(res.body.details.email).toEqual([{ error: 'ERR_TAKEN', description: 'has already been taken' }]);
    const bad = await signUp({ ...valid, username: 'fresh', email: 'a%b@example.test', reason: 'family' });
    expect(bad.body.details.email).toEqual([{ error: 'ERR_INVALID', description: 'is invalid' }]);
    const blank = await signUp({ ...valid, username: 'fresh', email: '  ', reason: 'family' });
    expect(blank.body.details.email).toEqual([{ error: 'ERR_BLANK', description: "can't be blank" }]);
    expect(blank.body.error).toBe("Validation failed: E-mail address can't be blank");
  });

  it('an empty form names every parameter Mastodon validates, in its order', async () => {
    const res = await signUp({});
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.details)).toEqual(['email', 'password', 'username', 'reason', 'agreement']);
    expect(res.body.details).toEqual({
      email: [{ error: 'ERR_BLANK', description: "can't be blank" }],
      password: [{ error: 'ERR_BLANK', description: "can't be blank" }],
      username: [{ error: 'ERR_BLANK', description: "can't be blank" }],
      reason: [{ error: 'ERR_BLANK', description: "can't be blank" }],
      agreement: [{ error: 'ERR_ACCEPTED', description: 'must be accepted' }],
    });
    expect(res.body.error).toBe(
      "Validation failed: E-mail address can't be blank, Password can't be blank, Username can't be blank, Reason can't be blank, Service agreement must be accepted",
    );
  });

  it('passwords are 8 to 72 characters; a reason at most 420', async () => {
    const long = await signUp({ ...valid, username: 'fresh', password: 'p'.repeat(73), reason: 'r'.repeat(421) });
    expect(long.body.details).toEqual({
      password: [{ error: 'ERR_TOO_LONG', description: 'is too long (maximum is 72 characters)' }],
      reason: [{ error: 'ERR_TOO_LONG', description: 'is too long (maximum is 420 characters)' }],
    });
    const ok = await signUp({ ...valid, username: 'fresh', password: 'p'.repeat(72), reason: 'r'.repeat(420) });
    expect(ok.status, ok.text).toBe(200);
  });

  it('an unknown locale is no error: it is dropped, as Mastodon normalizes it away', async () => {
    const res = await signUp({ ...valid, email: 'polyglot@example.test', username: 'polyglot', locale: 'not a locale!', reason: 'family' });
    expect(res.status, res.text).toBe(200);
    const account = findAccountByHandle(inst.deps.db, 'polyglot', null);
    expect(findUserByAccountId(inst.deps.db, account?.id ?? '')?.locale).toBeNull();
  });
});
