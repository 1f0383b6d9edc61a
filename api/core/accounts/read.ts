import { domainToASCII } from 'node:url';
import { countPendingFollowRequests, findAccountByHandle } from '../../db/repos/accounts.js';
import { findUserById, type UserRow } from '../../db/repos/users.js';
import { toMastodonCredentialAccount, unicodeDomain, type AccountView, type CredentialAccount, type CredentialExtras } from '../../serializers/account.js';
import { ApiError, notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { FreshCache } from '../fresh-cache.js';
import { getUserSettings } from './settings.js';
import { loadAccountView, loadAccountViews } from './views.js';

/** Most accounts `GET /api/v1/accounts?id[]=` answers at once, as Mastodon limits it. */
export const MAX_ACCOUNTS_PER_REQUEST = 40;

/**
 * Whether an account may be shown at all: a local account whose user still waits for approval
 * does not exist yet as far as others can tell.
 */
function listed(view: AccountView): boolean {
  return view.account.domain !== null || view.user === null || view.user.approved;
}

/**
 * The account behind `GET /api/v1/accounts/:id`: 404 for an unknown id (or a malformed one, or a
 * sign-up still pending approval). A suspended account is found: since Mastodon 3.3 it answers 200
 * with the account shown `suspended: true` and emptied (the serializer withholds its data), no
 * longer 410.
 */
export function getAccountForApi(deps: Deps, id: string): AccountView {
  if (!isId(id)) throw notFound();
  const view = loadAccountView(deps, id);
  if (!view || !listed(view)) throw notFound();
  return view;
}

/**
 * Several accounts by id, in the order asked, for `GET /api/v1/accounts?id[]=`: unknown and
 * malformed ids are skipped; suspended accounts are included (shown with empty data).
 */
export function getAccountsForApi(deps: Deps, ids: readonly string[]): AccountView[] {
  if (ids.length > MAX_ACCOUNTS_PER_REQUEST) {
    const description = `is too long (maximum is ${MAX_ACCOUNTS_PER_REQUEST} ids)`;
    throw new ApiError(422, `Validation failed: Id ${description}`, { extra: { details: { id: [{ error: 'ERR_TOO_LONG', description }] } } });
  }
  const wanted = [...new Set(ids.filter(isId))];
  const views = loadAccountViews(deps, wanted);
  return wanted.map((id) => views.get(id)).filter((v): v is AccountView => v !== undefined && listed(v));
}

function sameHost(a: string, b: string): boolean {
  const ascii = (d: string) => {
    const [host = '', port = ''] = d.toLowerCase().split(/:(?=\d+$)/);
    return `${domainToASCII(host) || host}${port ? `:${port}` : ''}`;
  };
  return ascii(a) === ascii(b);
}

/**
 * Finds an account by handle for `GET /api/v1/accounts/lookup`, without WebFinger: `name` or
 * `name@this.domain` for local accounts, `name@other.domain` for remote accounts already known
 * here. Anything else is 404 (resolving unknown remote accounts comes with federation).
 */
export function lookupAccount(deps: Deps, acct: string): AccountView {
  const handle = acct.trim().replace(/^@/, '');
  const at = handle.indexOf('@');
  const username = at === -1 ? handle : handle.slice(0, at);
  const domain = at === -1 ? null : handle.slice(at + 1);
  if (!username || domain === '') throw notFound();
  const local = domain === null || sameHost(domain, deps.uris.domain);
  // Remote domains are stored in Unicode, lower case; a punycode handle finds them too.
  const row = findAccountByHandle(deps.db, username, local ? null : unicodeDomain(domain.toLowerCase()));
  if (!row) throw notFound();
  const view = loadAccountView(deps, row.id);
  if (!view || !listed(view)) throw notFound();
  return view;
}

/** What the signed-in user's CredentialAccount adds to their Account: posting defaults and counts. */
export function credentialExtras(deps: Deps, user: UserRow): CredentialExtras {
  const settings = getUserSettings(user);
  return {
    privacy: settings.default_privacy,
    sensitive: settings.default_sensitive,
    language: settings.default_language,
    quotePolicy: settings.default_quote_policy,
    followRequestsCount: countPendingFollowRequests(deps.db, user.account_id),
  };
}

// verify_credentials is what clients poll: kept while the database is unchanged (see FreshCache).
const credentials = new FreshCache<CredentialAccount | null>(60_000);

/**
 * The signed-in user's CredentialAccount as the database has it now (after a change, too): the
 * same frozen entity is served again while nothing was written.
 */
export function credentialAccount(deps: Deps, userId: string): CredentialAccount {
  const entity = credentials.get(deps, userId, () => {
    const user = findUserById(deps.db, userId);
    const view = user ? loadAccountView(deps, user.account_id) : null;
    return user && view ? toMastodonCredentialAccount(view, user, credentialExtras(deps, user), deps.uris) : null;
  });
  if (!entity) throw notFound();
  return entity;
}
