import { findAccountById, parseStringList, updateAccount, type AccountRow } from '../../db/repos/accounts.js';
import { accountBlocksDomain, localFollowerIds } from '../../db/repos/federation.js';
import { findStatusByUri } from '../../db/repos/statuses.js';
import { deletePin, hasPin, insertPin } from '../../db/repos/interactions.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { blockAccount, unblockAccount } from '../relationships/blocks.js';
import { followAccount, unfollowAccount } from '../relationships/follows.js';
import { carryOverBlocksAndMutes } from '../relationships/moves.js';
import { createReport } from '../reports/reports.js';
import { rejectsReportsFrom } from './instance-domains.js';
import { localStatusByUri } from './remote-statuses.js';

/**
 * Whether a local account refuses what a remote account sends: it blocks the remote account's
 * whole domain (user-level domain block). Such follows and interactions are dropped.
 */
export function blocksSenderDomain(deps: Deps, local: AccountRow, sender: AccountRow): boolean {
  const domain = sender.domain;
  if (domain === null) return false;
  // A block of example.com also covers its subdomains, as in Mastodon.
  const parts = domain.split('.');
  for (let i = 0; i < parts.length - 1; i++) {
    if (accountBlocksDomain(deps.db, local.id, parts.slice(i).join('.'))) return true;
  }
  return false;
}

/** A remote account blocks a local one (inbound Block): the same `blockAccount` as the REST API. */
export function receiveRemoteBlock(deps: Deps, sender: AccountRow, target: AccountRow): void {
  blockAccount(deps, sender, target.id);
}

/** A remote account lifts its block of a local one (inbound Undo Block). */
export function receiveRemoteUnblock(deps: Deps, sender: AccountRow, target: AccountRow): void {
  unblockAccount(deps, sender, target.id);
}

/**
 * A remote report (inbound Flag) about a local account and some of its statuses: filed through
 * `createReport`, so it reaches the moderators as a report made from the API would. Statuses that
 * are not the account's, or unknown, are left out; the comment is cut to the report limit.
 */
export function receiveRemoteFlag(deps: Deps, reporter: AccountRow, target: AccountRow, statusUris: readonly string[], comment: string): void {
  // A domain block with reject_reports drops the domain's reports.
  if (rejectsReportsFrom(deps, reporter.domain)) return;
  const statusIds = statusUris
    .map((uri) => findStatusByUri(deps.db, uri) ?? localStatusByUri(deps, uri))
    .filter((s): s is NonNullable<typeof s> => s !== undefined && s.account_id === target.id && s.visibility !== 'direct')
    .map((s) => s.id);
  createReport(deps, reporter, { accountId: target.id, statusIds, comment: [...comment].slice(0, 1000).join(''), category: 'other', ruleIds: [], forward: false });
}

/**
 * A remote account moved to `target` (inbound Move), as Mastodon's MoveHandler: accepted only
 * when the target names the old account among its aliases (`alsoKnownAs`). The old account
 * records where it went, and every local follower (or requester) follows the new account and unfollows the old.
 * Returns whether the move was applied.
 */
export function receiveRemoteMove(deps: Deps, origin: AccountRow, target: AccountRow): boolean {
  if (origin.uri === null || target.id === origin.id) return false;
  if (!parseStringList(target.also_known_as).includes(origin.uri)) return false;
  deps.db.transaction(() => updateAccount(deps.db, origin.id, { moved_to_account_id: target.id, updated_at: now() }));
  deps.events.emit('account.updated', { accountId: origin.id });
  for (const followerId of localFollowerIds(deps.db, origin.id)) {
    const follower = findAccountById(deps.db, followerId);
    if (!follower || follower.id === target.id) continue;
    try {
      followAccount(deps, follower, target.id);
    } catch {
      // The follower blocks the new account, or is blocked by it: nothing to carry over.
    }
    unfollowAccount(deps, follower, origin.id);
  }
  carryOverBlocksAndMutes(deps, origin, target);
  return true;
}

/**
 * Featured-collection sync from Add/Remove: a remote account pins or unpins one of its own known
 * statuses. Anything else (another account's status, an unknown one) changes nothing.
 */
export function receiveRemotePin(deps: Deps, sender: AccountRow, statusUri: string, pinned: boolean): boolean {
  const status = findStatusByUri(deps.db, statusUri);
  if (!status || status.account_id !== sender.id) return false;
  return deps.db.transaction(() => {
    if (!pinned) return deletePin(deps.db, sender.id, status.id);
    if (hasPin(deps.db, sender.id, status.id)) return false;
    insertPin(deps.db, { id: newId(now()), account_id: sender.id, status_id: status.id, created_at: now() });
    return true;
  });
}
