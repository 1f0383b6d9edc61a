import { countUsers } from '../db/repos/users.js';
import { notFound, unprocessable } from '../util/errors.js';
import { emitLocalUserCreated, insertLocalUser, prepareLocalUser } from './accounts/create.js';
import type { Deps } from './deps.js';
import { randomSecret } from './oauth/tokens.js';

/**
 * First-run setup: while no user holds the `owner` role, `/setup` creates one. The page is
 * accepted from a loopback address, or from anywhere with the per-process setup token that
 * `hearth serve` prints.
 */

const tokens = new WeakMap<Deps, string>();

/** The setup token of this running instance: random, made on first use, kept only in memory. */
export function setupToken(deps: Deps): string {
  let token = tokens.get(deps);
  if (!token) {
    token = randomSecret(24);
    tokens.set(deps, token);
  }
  return token;
}

/** True while the instance has no owner yet. */
export function needsSetup(deps: Deps): boolean {
  return countUsers(deps.db, 'owner') === 0;
}

/** True for 127.0.0.0/8 and ::1, also in their IPv4-mapped IPv6 forms. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.toLowerCase().replace(/^::ffff:/, '');
  return a === '::1' || /^127(\.\d{1,3}){3}$/.test(a);
}

/** Headers by which a proxy on this machine says it forwards someone else's request. */
export const FORWARDING_HEADERS: readonly string[] = ['x-forwarded-for', 'forwarded', 'x-forwarded-host', 'x-real-ip'];

/**
 * Whether a setup request may go ahead: it comes straight from a loopback address (the socket's
 * peer, never a forwarded header), or it carries the right setup token. A loopback peer that says
 * it forwards someone else's request (a TLS proxy on this machine: X-Forwarded-For, Forwarded,
 * X-Forwarded-Host) is not this computer's user, and needs the token too.
 */
export function setupAllowed(args: { remoteAddress: string | undefined; forwarded?: boolean; givenToken: string | undefined; expectedToken: string }): boolean {
  if (isLoopbackAddress(args.remoteAddress) && !args.forwarded) return true;
  const given = args.givenToken ?? '';
  if (given.length !== args.expectedToken.length) return false;
  let diff = 0;
  for (let i = 0; i < given.length; i++) diff |= given.charCodeAt(i) ^ args.expectedToken.charCodeAt(i);
  return diff === 0;
}

/** What the setup form sends. */
export interface OwnerInput {
  username: string;
  email: string | null;
  password: string;
  passwordConfirmation: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * Creates the owner: checks the confirmation and e-mail, then the username and password rules of
 * `prepareLocalUser`, all before anything is written. 404 once an owner exists. The password hash
 * and the key pair are made off the event loop; whether an owner exists is checked again in the
 * transaction that inserts, so no second owner can slip in meanwhile.
 */
export async function createOwner(deps: Deps, input: OwnerInput): Promise<{ userId: string; accountId: string }> {
  if (!needsSetup(deps)) throw notFound();
  if (input.password !== input.passwordConfirmation) {
    throw unprocessable("Password confirmation doesn't match Password", { details: { password_confirmation: [{ error: 'ERR_CONFIRMATION', description: "doesn't match Password" }] } });
  }
  if (input.email !== null && !EMAIL.test(input.email)) throw unprocessable('Email is invalid', { details: { email: [{ error: 'ERR_INVALID', description: 'is invalid' }] } });
  const prepared = await prepareLocalUser({ username: input.username, email: input.email, password: input.password, role: 'owner', approved: true });
  const created = deps.db.transaction(() => {
    if (!needsSetup(deps)) throw notFound();
    return insertLocalUser(deps, prepared);
  });
  emitLocalUserCreated(deps, prepared);
  return created;
}
