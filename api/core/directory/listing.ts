import { directoryAccountIds, searchAccountIdsFor, type DirectoryQuery } from '../../db/repos/directory.js';
import type { Account } from '../../serializers/account.js';
import { presentAccounts } from '../accounts/views.js';
import type { Deps } from '../deps.js';
import { accountHiddenSql } from '../relationships/exclusions.js';

/**
 * Finding accounts: the account search of `GET /api/v1/accounts/search` and the profile
 * directory of `GET /api/v1/directory`.
 */

/** Account search parameters, validated by the HTTP layer. */
export interface AccountSearchParams {
  q: string;
  limit: number;
  offset: number;
  /** Accepted; resolving unknown remote handles comes with federation, so only known accounts are found. */
  resolve: boolean;
  /** Only the viewer and accounts they follow. */
  following: boolean;
}

/**
 * Accounts matching `q` for a signed-in viewer: by username, full handle (`user@domain`) or
 * display name prefix, exact handle first. A blank query or a zero limit finds nothing.
 */
export function searchAccounts(deps: Deps, viewerId: string, p: AccountSearchParams): Account[] {
  const text = p.q.trim().replace(/^@/, '');
  if (text === '' || p.limit < 1) return [];
  const ids = searchAccountIdsFor(deps.db, viewerId, {
    text,
    localDomain: deps.uris.domain,
    following: p.following,
    limit: p.limit,
    offset: p.offset,
  });
  return presentAccounts(deps, ids);
}

/**
 * The profile directory: discoverable accounts, most recently active or newest first; a signed-in
 * viewer does not see the accounts their blocks, mutes and domain blocks hide.
 */
export function listDirectory(deps: Deps, viewerId: string | null, q: DirectoryQuery): Account[] {
  if (q.limit < 1) return [];
  return presentAccounts(deps, directoryAccountIds(deps.db, accountHiddenSql, viewerId, q));
}
