import { generateKeyPair, generateKeyPairSync } from 'node:crypto';
import { findAccountByHandle, insertAccount } from '../../db/repos/accounts.js';
import { emailTaken, insertUser, type UserRole } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import { unprocessable } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import { hashPasswordAsync } from '../../util/passwords.js';
import type { Deps } from '../deps.js';

/** Usernames as Mastodon allows them: letters, digits and underscores, at most 30 characters. */
export const USERNAME_PATTERN = /^[a-z0-9_]+$/i;
export const USERNAME_MAX = 30;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 72;

/** Names that would clash with paths or impersonate the instance. */
const RESERVED = new Set(['admin', 'administrator', 'root', 'support', 'help', 'settings', 'system', 'webmaster', 'postmaster', 'hostmaster', 'instance', 'actor', 'mastodon', 'hearth', 'relay', 'inbox', 'outbox', 'users', 'about', 'api', 'oauth', 'well_known', 'nodeinfo', 'setup']);

export interface NewLocalUser {
  username: string;
  password: string;
  email?: string | null | undefined;
  role?: UserRole | undefined;
  locale?: string | null | undefined;
  approved?: boolean | undefined;
  reason?: string | null | undefined;
  inviteId?: string | null | undefined;
  ip?: string | null | undefined;
  /** Skips the reserved-name check (the CLI may create `admin` deliberately). */
  allowReserved?: boolean | undefined;
  /** False: the e-mail address waits for confirmation (a sign-up while mail can be sent); true by default. */
  confirmed?: boolean | undefined;
}

/** True when a username is kept back for the instance itself. */
export function isReservedUsername(username: string): boolean {
  return RESERVED.has(username.toLowerCase());
}

/** Checks a username against Mastodon's rules; throws 422 naming the problem. */
export function validateUsername(username: string, allowReserved = false): void {
  if (!username) throw unprocessable('Username can\'t be blank', { details: { username: [{ error: 'ERR_BLANK', description: "can't be blank" }] } });
  if (username.length > USERNAME_MAX) throw unprocessable('Username is too long (maximum is 30 characters)', { details: { username: [{ error: 'ERR_TOO_LONG', description: 'is too long (maximum is 30 characters)' }] } });
  if (!USERNAME_PATTERN.test(username)) throw unprocessable('Username must contain only letters, numbers and underscores', { details: { username: [{ error: 'ERR_INVALID', description: 'must contain only letters, numbers and underscores' }] } });
  if (!allowReserved && RESERVED.has(username.toLowerCase())) throw unprocessable('Username is reserved', { details: { username: [{ error: 'ERR_RESERVED', description: 'is reserved' }] } });
}

/** Checks a password's length as Mastodon does (8 to 72 characters). */
export function validatePassword(password: string): void {
  if (password.length < PASSWORD_MIN) throw unprocessable('Password is too short (minimum is 8 characters)', { details: { password: [{ error: 'ERR_TOO_SHORT', description: 'is too short (minimum is 8 characters)' }] } });
  if (password.length > PASSWORD_MAX) throw unprocessable('Password is too long (maximum is 72 characters)', { details: { password: [{ error: 'ERR_TOO_LONG', description: 'is too long (maximum is 72 characters)' }] } });
}

/**
 * An RSA key pair for an ActivityPub `#main-key`, made synchronously: it holds the thread for the
 * 50–100 ms an RSA key takes. Only for callers that cannot wait (the instance actor's first use);
 * everything else uses `generateActorKeysAsync`.
 */
export function generateActorKeys(): { publicKeyPem: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

/** `generateActorKeys` on libuv's thread pool: the event loop goes on meanwhile. */
export function generateActorKeysAsync(): Promise<{ publicKeyPem: string; privateKeyPem: string }> {
  return new Promise((resolve, reject) => {
    generateKeyPair(
      'rsa',
      { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } },
      (err, publicKey, privateKey) => (err ? reject(err) : resolve({ publicKeyPem: publicKey, privateKeyPem: privateKey })),
    );
  });
}

/**
 * The slow parts of making a local user, which every sign-up path (the REST API, /setup, the
 * CLI) goes through. Test-only: `null` (off) in production.
 */
export const accountCreationTestHooks: {
  /**
   * Called once the password hash and the key pair are under way, with the promises of both;
   * what it returns is awaited before the user is written (lets a test hold a sign-up open).
   */
  onSlowWork: ((work: { passwordHash: Promise<string>; keys: Promise<{ publicKeyPem: string; privateKeyPem: string }> }) => Promise<void> | void) | null;
} = { onSlowWork: null };

/** A local user ready to be written: validated, password hashed, actor keys made (the slow parts). */
export interface PreparedLocalUser {
  input: NewLocalUser;
  passwordHash: string;
  keys: { publicKeyPem: string; privateKeyPem: string };
  at: number;
  accountId: string;
  userId: string;
  approved: boolean;
}

/**
 * Validates a new local user and does the slow work (password hashing, key generation) outside
 * any transaction, both on libuv's thread pool side by side: the event loop keeps serving other
 * requests meanwhile (done synchronously they stopped it for 50–100 ms per sign-up). Rejects with
 * 422 for an invalid username or password, before any slow work. Whatever was checked against
 * the database before this returns must be checked again in the transaction that inserts.
 */
export async function prepareLocalUser(input: NewLocalUser): Promise<PreparedLocalUser> {
  validateUsername(input.username, input.allowReserved);
  validatePassword(input.password);
  const passwordHash = hashPasswordAsync(input.password);
  const keys = generateActorKeysAsync();
  const held = accountCreationTestHooks.onSlowWork?.({ passwordHash, keys });
  const [hash, pair] = await Promise.all([passwordHash, keys, held]);
  const at = now();
  return {
    input,
    passwordHash: hash,
    keys: pair,
    at,
    accountId: newId(at),
    userId: newId(at),
    approved: input.approved ?? true,
  };
}

/**
 * Writes a prepared user's account and user rows. Must run inside a transaction (the caller's);
 * throws 422 ERR_TAKEN when the username or e-mail is already used. Emits nothing: the caller
 * emits `account.created` and `user.signed_up` after commit (`emitLocalUserCreated`).
 */
export function insertLocalUser(deps: Deps, p: PreparedLocalUser): { userId: string; accountId: string } {
  const { input, at } = p;
  if (findAccountByHandle(deps.db, input.username, null)) {
    throw unprocessable('Username has already been taken', { details: { username: [{ error: 'ERR_TAKEN', description: 'has already been taken' }] } });
  }
  if (input.email && emailTaken(deps.db, input.email)) {
    throw unprocessable('Email has already been taken', { details: { email: [{ error: 'ERR_TAKEN', description: 'has already been taken' }] } });
  }
  insertAccount(deps.db, {
    id: p.accountId,
    username: input.username,
    public_key_pem: p.keys.publicKeyPem,
    private_key_pem: p.keys.privateKeyPem,
    created_at: at,
    updated_at: at,
  });
  insertUser(deps.db, {
    id: p.userId,
    account_id: p.accountId,
    email: input.email ?? null,
    password_hash: p.passwordHash,
    role: input.role ?? 'user',
    locale: input.locale ?? null,
    approved: p.approved ? 1 : 0,
    sign_up_reason: input.reason ?? null,
    sign_up_ip: input.ip ?? null,
    invite_id: input.inviteId ?? null,
    confirmed_at: input.confirmed === false ? null : at,
    created_at: at,
    updated_at: at,
  });
  return { userId: p.userId, accountId: p.accountId };
}

/** Emits the events of a new local user, after the transaction that wrote it has committed. */
export function emitLocalUserCreated(deps: Deps, p: PreparedLocalUser): void {
  deps.events.emit('account.created', { accountId: p.accountId });
  deps.events.emit('user.signed_up', { userId: p.userId, accountId: p.accountId, approved: p.approved });
}

/**
 * Creates a local account and its user in one transaction (username unique, case-insensitively),
 * with actor keys ready for federation, and emits `account.created` and `user.signed_up`. The
 * password hash and the keys are made off the event loop (see `prepareLocalUser`).
 */
export async function createLocalUser(deps: Deps, input: NewLocalUser): Promise<{ userId: string; accountId: string }> {
  const prepared = await prepareLocalUser(input);
  const created = deps.db.transaction(() => insertLocalUser(deps, prepared));
  emitLocalUserCreated(deps, prepared);
  return created;
}
