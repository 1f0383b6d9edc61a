import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDataDir } from '../../api/app.js';
import { main } from '../../api/cli.js';
import { accountCreationTestHooks } from '../../api/core/accounts/create.js';
import { findAccountByHandle } from '../../api/db/repos/accounts.js';
import { countUsers, findUserByAccountId } from '../../api/db/repos/users.js';
import { verifyPassword } from '../../api/util/passwords.js';
import { Browser } from '../helpers/browser.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { appToken } from './helpers.js';

/**
 * Sign-up makes a password hash and an RSA key pair: done synchronously they stopped the event
 * loop for 50–100 ms per sign-up. These tests check, without timing anything, that every path
 * that creates an account (the REST API, /setup, the CLI) has both made in the background: when
 * the work has just been started its promises have not settled by the next turn of the event loop
 * (a synchronous hash or key pair would be finished already); it completes while the request is
 * held open, and meanwhile the instance answers other requests.
 */

/** One sign-up caught at its slow work. */
interface Arrival {
  /** 'pending' when the hash and the key pair were still under way on the next turn of the loop. */
  state: Promise<'pending' | 'settled'>;
  /** Settles once both are made (they do not wait for the hold). */
  made: Promise<unknown>;
}

/** Holds every sign-up at its slow work until `release()`; `next()` resolves with each arrival. */
function holdSignups(): { next: () => Promise<Arrival>; release: () => void } {
  const arrivals: Arrival[] = [];
  const waiting: ((a: Arrival) => void)[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  accountCreationTestHooks.onSlowWork = (work) => {
    const made = Promise.all([work.passwordHash, work.keys]);
    const nextTurn = new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending')));
    const arrival: Arrival = { state: Promise.race([made.then(() => 'settled' as const), nextTurn]), made };
    const waiter = waiting.shift();
    if (waiter) waiter(arrival);
    else arrivals.push(arrival);
    return gate;
  };
  return {
    next: () => {
      const ready = arrivals.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    release,
  };
}

/** Tracks whether a promise has settled yet. */
function track<T>(p: Promise<T>): { settled: () => boolean; result: Promise<T> } {
  let done = false;
  const result = p.finally(() => {
    done = true;
  });
  return { settled: () => done, result };
}

const signupForm = (username: string) => ({ username, email: `${username}@example.test`, password: 'correct horse battery', agreement: true, locale: 'en' });

describe('sign-up does its slow work off the event loop', () => {
  let inst: TestInstance;
  let app: { token: string };

  beforeAll(async () => {
    inst = await startInstance({ registrations: 'open' });
    app = appToken(inst);
  });
  afterAll(() => inst.close());
  afterEach(() => {
    accountCreationTestHooks.onSlowWork = null;
  });

  it('POST /api/v1/accounts: the hash and key pair are made in the background while other requests are answered', async () => {
    const hold = holdSignups();
    const signup = track(inst.anon.post('/api/v1/accounts', signupForm('patient'), { token: app.token }));
    const arrival = await hold.next();
    expect(await arrival.state).toBe('pending');
    // The event loop is free: the instance answers while the sign-up is held.
    const health = await inst.anon.get('/health', { skipSchema: true });
    expect(health.status).toBe(200);
    const instance = await inst.anon.get('/api/v1/instance');
    expect(instance.status).toBe(200);
    // The hash and the key pair finish by themselves, the request still open.
    await arrival.made;
    expect(signup.settled()).toBe(false);
    hold.release();
    const res = await signup.result;
    expect(res.status, res.text).toBe(200);

    // What was made in the background is what was stored: a key pair and a hash of the password.
    const account = findAccountByHandle(inst.deps.db, 'patient', null);
    expect(account?.public_key_pem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(account?.private_key_pem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const user = account ? findUserByAccountId(inst.deps.db, account.id) : undefined;
    expect(await verifyPassword('correct horse battery', user?.password_hash ?? '')).toBe(true);
    expect(await verifyPassword('wrong horse battery', user?.password_hash ?? '')).toBe(false);
    const me = await inst.anon.get('/api/v1/accounts/verify_credentials', { token: res.body.access_token });
    expect(me.body.acct).toBe('patient');
  });

  it('two sign-ups for one name at once: the name is checked again when written, so the second is 422 ERR_TAKEN', async () => {
    const hold = holdSignups();
    const first = track(inst.anon.post('/api/v1/accounts', signupForm('twin'), { token: app.token }));
    const second = track(inst.anon.post('/api/v1/accounts', { ...signupForm('twin'), email: 'other-twin@example.test' }, { token: app.token }));
    await hold.next();
    await hold.next();
    const users = countUsers(inst.deps.db);
    hold.release();
    const answers = [await first.result, await second.result].map((r) => r.status).sort();
    expect(answers).toEqual([200, 422]);
    const refused = [await first.result, await second.result].find((r) => r.status === 422);
    expect(refused?.body.error).toBe('Validation failed: Username has already been taken');
    expect(refused?.body.details).toEqual({ username: [{ error: 'ERR_TAKEN', description: 'has already been taken' }] });
    expect(countUsers(inst.deps.db)).toBe(users + 1);
  });
});

describe('/setup does its slow work off the event loop', () => {
  let inst: TestInstance;

  beforeAll(async () => {
    inst = await startInstance();
  });
  afterAll(() => inst.close());
  afterEach(() => {
    accountCreationTestHooks.onSlowWork = null;
  });

  it('makes the owner in the background, and two forms sent at once make one owner (the other 404)', async () => {
    const hold = holdSignups();
    const owner = { password: 'long-enough-1', password_confirmation: 'long-enough-1' };
    const kim = new Browser(inst.url);
    const lee = new Browser(inst.url);
    const kimForm = await kim.get('/setup');
    const leeForm = await lee.get('/setup');
    const first = track(kim.submit(kimForm, { username: 'kim', ...owner }));
    const a = await hold.next();
    const second = track(lee.submit(leeForm, { username: 'lee', ...owner }));
    const b = await hold.next();
    expect(await a.state).toBe('pending');
    expect(await b.state).toBe('pending');
    expect((await inst.anon.get('/health', { skipSchema: true })).status).toBe(200);
    await Promise.all([a.made, b.made]);
    expect(first.settled() || second.settled()).toBe(false);
    hold.release();
    expect([(await first.result).status, (await second.result).status].sort()).toEqual([200, 404]);
    expect(countUsers(inst.deps.db, 'owner')).toBe(1);
    expect(countUsers(inst.deps.db)).toBe(1);
  });
});

describe('hearth account create does its slow work off the event loop', () => {
  let dataDir: string;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'hearth-cli-signup-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  afterEach(() => {
    accountCreationTestHooks.onSlowWork = null;
  });

  it('makes the key pair and the hash in the background', async () => {
    const hold = holdSignups();
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const run = track(main(['account', 'create', '--data', dataDir, '--username', 'cli_user', '--password', 'cli-password-1']));
      const arrival = await hold.next();
      expect(await arrival.state).toBe('pending');
      await arrival.made;
      expect(run.settled()).toBe(false);
      hold.release();
      expect(await run.result).toBe(0);
    } finally {
      log.mockRestore();
    }
    const db = openDataDir(dataDir);
    try {
      const account = findAccountByHandle(db, 'cli_user', null);
      expect(account?.public_key_pem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
      const user = account ? findUserByAccountId(db, account.id) : undefined;
      expect(await verifyPassword('cli-password-1', user?.password_hash ?? '')).toBe(true);
    } finally {
      db.close();
    }
  });
});
