import { insertAccountMigration, latestAccountMigration, setAccountAliases } from '../../db/repos/account-migrations.js';
import { carryOverBlocksAndMutes } from '../relationships/moves.js';
import { findAccountByHandle, findAccountById, findAccountByUri, parseStringList, updateAccount, type AccountRow } from '../../db/repos/accounts.js';
import { localFollowerIds } from '../../db/repos/federation.js';
import { findFollow, findFollowRequest } from '../../db/repos/follows.js';
import type { UserRow } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import { ApiError, forbidden, notFound, unprocessable } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import { verifyPassword } from '../../util/passwords.js';
import type { Deps } from '../deps.js';
import { followAccount, unfollowAccount } from '../relationships/follows.js';

/**
 * Account aliases and moves of local accounts (Mastodon's "moving from/to another account",
 * exposed as Pleroma's REST API): the aliases a local account lists in its actor's `alsoKnownAs`,
 * and the move itself, which redirects the account, tells its followers' servers (Move) and
 * carries its local followers over.
 */

/** Fetches a remote account afresh by handle or actor URL and stores it; null when not found. */
export type AccountFetcher = (handleOrUri: string) => Promise<AccountRow | null>;

const fetchers = new WeakMap<Deps, AccountFetcher>();

/** Installs the fresh remote account fetch (federation does, when the instance has an origin). */
export function setAccountFetcher(deps: Deps, fetcher: AccountFetcher | null): void {
  if (fetcher) fetchers.set(deps, fetcher);
  else fetchers.delete(deps);
}

/** How long after a move the account may not move again (Mastodon's AccountMigration cooldown). */
export const MOVE_COOLDOWN_MS = 30 * 24 * 60 * 60 * 1000;

/** Pleroma's answer when the named account cannot be found. */
export const TARGET_NOT_FOUND = 'Target account not found.';

const HANDLE = /^@?([^@\s/]+)(?:@([^@\s/]+))?$/;

/** The actor URI of any account: remote ones carry it, local ones are built from the origin. */
function actorUriOf(deps: Deps, account: AccountRow): string {
  return account.uri ?? deps.uris.accountUri(account.username);
}

/** Whether a handle's domain (or a URL's host) is this instance. */
function isOwnDomain(deps: Deps, domain: string): boolean {
  return domain.toLowerCase() === deps.uris.domain.toLowerCase();
}

/**
 * Finds the account a handle (`user@domain`, `@user@domain`, a bare local `user`) or actor URL
 * names. A local one is read from the database; a remote one is fetched afresh when `fresh`
 * (a move must see the target's current aliases), else taken from the database once known
 * (fetched when it is not). Null when nothing answers to it.
 */
async function findTarget(deps: Deps, query: string, fresh: boolean): Promise<AccountRow | null> {
  const q = query.trim();
  if (/^https?:\/\//i.test(q)) {
    if (!URL.canParse(q)) return null;
    const url = new URL(q);
    if (isOwnDomain(deps, url.host)) {
      const local = /^\/users\/([^/]+)$/.exec(url.pathname);
      return local?.[1] ? localAccount(deps, decodeURIComponent(local[1])) : null;
    }
    return remoteAccount(deps, q, findAccountByUri(deps.db, q), fresh);
  }
  const handle = HANDLE.exec(q);
  if (!handle?.[1]) return null;
  const [, username, domain] = handle;
  if (domain === undefined || isOwnDomain(deps, domain)) return localAccount(deps, username);
  return remoteAccount(deps, `${username}@${domain}`, findAccountByHandle(deps.db, username, domain.toLowerCase()), fresh);
}

function localAccount(deps: Deps, username: string): AccountRow | null {
  const row = findAccountByHandle(deps.db, username, null);
  return row && row.suspended_at === null ? row : null;
}

async function remoteAccount(deps: Deps, query: string, known: AccountRow | undefined, fresh: boolean): Promise<AccountRow | null> {
  const fetcher = fetchers.get(deps);
  let row = known ?? null;
  // Without federation (no origin) only accounts already known can be named.
  if (fetcher && (fresh || !known)) {
    // Gone, or not reachable now: a move must not rely on a stale copy.
    row = await fetcher(query).catch(() => null);
  }
  return row && row.suspended_at === null ? row : null;
}

/** A local account's aliases: the actor URIs it lists in `alsoKnownAs`. */
export function listAliases(account: AccountRow): string[] {
  return parseStringList(account.also_known_as);
}

function reloadAccount(deps: Deps, id: string): AccountRow {
  const row = findAccountById(deps.db, id);
  if (!row) throw notFound();
  return row;
}

/**
 * Adds the account a handle names to a local account's aliases (so that account may move here):
 * 404 when it cannot be found, 422 for the account itself. Adding a listed alias changes
 * nothing. The actor's followers get an Update through 'account.updated'. Returns the aliases.
 */
export async function addAlias(deps: Deps, account: AccountRow, handle: string): Promise<string[]> {
  const target = await findTarget(deps, handle, false);
  if (!target) throw new ApiError(404, TARGET_NOT_FOUND);
  if (target.id === account.id) throw unprocessable('You cannot add your own account as an alias');
  const uri = actorUriOf(deps, target);
  const current = listAliases(reloadAccount(deps, account.id));
  if (current.includes(uri)) return current;
  const next = [...current, uri];
  deps.db.transaction(() => setAccountAliases(deps.db, account.id, next, now()));
  deps.events.emit('account.updated', { accountId: account.id });
  return next;
}

/**
 * Removes an alias, named by handle or by the actor URI itself (an account that no longer
 * resolves can still be removed by its URI): 404 when it is not one of the aliases.
 */
export async function removeAlias(deps: Deps, account: AccountRow, handle: string): Promise<string[]> {
  const current = listAliases(reloadAccount(deps, account.id));
  let uri: string | null = current.includes(handle.trim()) ? handle.trim() : null;
  if (uri === null) {
    const target = await findTarget(deps, handle, false);
    uri = target ? actorUriOf(deps, target) : null;
  }
  if (uri === null || !current.includes(uri)) throw new ApiError(404, 'Account has no such alias.');
  const next = current.filter((a) => a !== uri);
  deps.db.transaction(() => setAccountAliases(deps.db, account.id, next, now()));
  deps.events.emit('account.updated', { accountId: account.id });
  return next;
}

/** Checks a user's current password before a sensitive action: 403 "Invalid password." otherwise. */
export async function confirmPassword(user: UserRow, password: string): Promise<void> {
  if (!(await verifyPassword(password, user.password_hash))) throw forbidden('Invalid password.');
}

/** What a move did. */
export interface MoveResult {
  target: AccountRow;
  /** Local followers now following (or requesting) the new account. */
  migratedFollowers: number;
}

/**
 * Moves a local account to the account `handle` names, with Mastodon's rules: the target must
 * exist (fetched afresh when remote; 404), not be the account itself, list this account's actor
 * among its aliases, and not be where the account already moved (422); the account may not move
 * again within 30 days of its last move (422). Then, in one transaction, the move is recorded and
 * the account points to the new one (its entity shows `moved`); after commit 'account.updated'
 * (Update of the actor) and 'account.moved' (Move to the followers' servers) are emitted, and its
 * local followers follow the new account and unfollow the old one. The password check is the
 * caller's (`confirmPassword`): the CLI is trusted.
 */
export async function moveAccount(deps: Deps, account: AccountRow, handle: string): Promise<MoveResult> {
  const target = await findTarget(deps, handle, true);
  if (!target) throw new ApiError(404, TARGET_NOT_FOUND);
  const origin = reloadAccount(deps, account.id);
  if (origin.domain !== null) throw forbidden();
  if (target.id === origin.id) throw unprocessable('You cannot move to your own account');
  const originUri = actorUriOf(deps, origin);
  if (!listAliases(target).includes(originUri)) {
    throw unprocessable(`The target account does not list this account as an alias: add ${originUri} to its aliases (alsoKnownAs) first`);
  }
  if (origin.moved_to_account_id === target.id) throw unprocessable('This account has already moved to that account');
  const at = now();
  const last = latestAccountMigration(deps.db, origin.id);
  if (last && at - last.created_at < MOVE_COOLDOWN_MS) {
    throw unprocessable(`You moved less than 30 days ago: the next move is possible after ${new Date(last.created_at + MOVE_COOLDOWN_MS).toISOString()}`);
  }
  const migrationId = newId(at);
  const acct = target.domain === null ? `${target.username}@${deps.uris.domain}` : `${target.username}@${target.domain}`;
  deps.db.transaction(() => {
    insertAccountMigration(deps.db, { id: migrationId, account_id: origin.id, target_account_id: target.id, acct, followers_count: origin.followers_count, created_at: at });
    updateAccount(deps.db, origin.id, { moved_to_account_id: target.id, updated_at: at });
  });
  deps.events.emit('account.updated', { accountId: origin.id });
  deps.events.emit('account.moved', { accountId: origin.id, targetAccountId: target.id, migrationId });
  const migratedFollowers = migrateLocalFollowers(deps, origin, target);
  carryOverBlocksAndMutes(deps, origin, target);
  return { target, migratedFollowers };
}

/**
 * Mastodon's local follower migration: each local follower (or requester) of the old account
 * follows the new one with the same options (reblogs, notify, languages) and unfollows the old.
 * A follower who blocks the new account, or is blocked by it, keeps nothing of the old follow
 * either (Mastodon unfollows in any case).
 */
function migrateLocalFollowers(deps: Deps, origin: AccountRow, target: AccountRow): number {
  let migrated = 0;
  for (const followerId of localFollowerIds(deps.db, origin.id)) {
    const follower = findAccountById(deps.db, followerId);
    if (!follower) continue;
    if (follower.id !== target.id) {
      const old = findFollow(deps.db, follower.id, origin.id) ?? findFollowRequest(deps.db, follower.id, origin.id);
      const languages = old?.languages ? parseStringList(old.languages) : undefined;
      try {
        followAccount(deps, follower, target.id, old ? { reblogs: old.show_reblogs === 1, notify: old.notify === 1, languages } : {});
        migrated++;
      } catch (err) {
        // A block either way (403) ends the follow without a new one; anything else is a fault.
        if (!(err instanceof ApiError) || (err.status !== 403 && err.status !== 404)) throw err;
      }
    }
    unfollowAccount(deps, follower, origin.id);
  }
  return migrated;
}
