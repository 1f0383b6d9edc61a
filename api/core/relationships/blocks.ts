import { domainToASCII, domainToUnicode } from 'node:url';
import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import {
  blockListPage,
  deleteBlock,
  deleteDomainBlock,
  deleteNotificationsBetween,
  domainBlockPage,
  findBlock,
  findDomainBlock,
  followsWithDomain,
  insertBlock,
  insertDomainBlock,
  type BlockRow,
  type DomainBlockRow,
} from '../../db/repos/blocks.js';
import { adjustFollowCounts, deleteFollow, deleteFollowRequest, findFollow, findFollowRequest } from '../../db/repos/follows.js';
import type { PageBounds } from '../../db/paging.js';
import { now } from '../../util/clock.js';
import { notFound, unprocessable } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { onBlocked } from '../suggestions/install.js';

/** Follows and requests a block or domain block removed, for the events sent after commit. */
interface Severed {
  follows: { id: string; account_id: string; target_account_id: string }[];
  requests: { id: string; account_id: string; target_account_id: string }[];
}

function emitSevered(deps: Deps, severed: Severed): void {
  for (const f of severed.follows) {
    deps.events.emit('follow.deleted', { followId: f.id, accountId: f.account_id, targetAccountId: f.target_account_id });
  }
  for (const r of severed.requests) {
    deps.events.emit('follow_request.deleted', { followRequestId: r.id, accountId: r.account_id, targetAccountId: r.target_account_id });
  }
}

/** Ends the follow of `from` to `to` and its pending request, inside the caller's transaction. */
function sever(deps: Deps, from: string, to: string, severed: Severed): void {
  const follow = findFollow(deps.db, from, to);
  if (follow) {
    deleteFollow(deps.db, follow.id);
    adjustFollowCounts(deps.db, from, to, -1);
    severed.follows.push(follow);
  }
  const request = findFollowRequest(deps.db, from, to);
  if (request) {
    deleteFollowRequest(deps.db, request.id);
    severed.requests.push(request);
  }
}

/**
 * `actor` blocks `targetAccountId` (POST /api/v1/accounts/:id/block), as Mastodon's BlockService:
 * follows and pending requests end both ways (endorsements and list memberships go with the
 * follows), the notifications the actor got from the target are cleared, and suggestions are
 * removed on both sides. Blocking again changes nothing; blocking oneself writes nothing (Mastodon
 * answers the relationship as it is). Unknown account: 404.
 */
export function blockAccount(deps: Deps, actor: AccountRow, targetAccountId: string): void {
  const target = findAccountById(deps.db, targetAccountId);
  if (!target) throw notFound();
  if (target.id === actor.id) return;
  const severed: Severed = { follows: [], requests: [] };
  const at = now();
  const block = deps.db.transaction((): BlockRow | null => {
    sever(deps, actor.id, target.id, severed);
    sever(deps, target.id, actor.id, severed);
    deleteNotificationsBetween(deps.db, actor.id, target.id);
    if (findBlock(deps.db, actor.id, target.id)) return null;
    const row: BlockRow = { id: newId(at), account_id: actor.id, target_account_id: target.id, created_at: at };
    insertBlock(deps.db, row);
    return row;
  });
  emitSevered(deps, severed);
  onBlocked(deps, actor.id, target.id);
  if (block) deps.events.emit('block.created', { blockId: block.id, accountId: actor.id, targetAccountId: target.id });
}

/** `actor` unblocks `targetAccountId`; not blocking is not an error. Unknown account: 404. */
export function unblockAccount(deps: Deps, actor: AccountRow, targetAccountId: string): void {
  const target = findAccountById(deps.db, targetAccountId);
  if (!target) throw notFound();
  const block = findBlock(deps.db, actor.id, target.id);
  if (!block) return;
  deps.db.transaction(() => deleteBlock(deps.db, actor.id, target.id));
  deps.events.emit('block.deleted', { blockId: block.id, accountId: actor.id, targetAccountId: target.id });
}

/** A page of the accounts the viewer blocks, newest block first, as (block id, account id). */
export function listBlocks(deps: Deps, viewerId: string, page: PageBounds): { block_id: string; account_id: string }[] {
  return blockListPage(deps.db, viewerId, page);
}

/**
 * A domain as a user types it, in the form accounts store it (Unicode, lower case): surrounding
 * spaces, a scheme and a trailing slash are dropped. Blank: "can't be blank"; anything that is not
 * a host name: "is not a valid domain name" (422, Mastodon's messages). `allowPort` (only under the
 * loopback test switch) keeps a trailing `:port`, as accounts of loopback peers store their domain.
 */
export function normalizeUserDomain(input: string | undefined, allowPort = false): string {
  const trimmed = (input ?? '').trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/+$/, '');
  const port = allowPort ? (/:[0-9]{1,5}$/.exec(trimmed)?.[0] ?? '') : '';
  const raw = trimmed.slice(0, trimmed.length - port.length);
  if (raw === '') throw unprocessable("Domain can't be blank");
  const ascii = /^[^\s/?#@:]+$/u.test(raw) ? domainToASCII(raw.toLowerCase()) : '';
  if (ascii === '' || !/^[a-z0-9.-]+$/.test(ascii) || ascii.startsWith('.') || ascii.endsWith('.') || ascii.includes('..')) {
    throw unprocessable('Domain is not a valid domain name');
  }
  return domainToUnicode(ascii) + port;
}

/**
 * `actor` blocks a whole domain (POST /api/v1/domain_blocks), as the docs describe it: its
 * accounts' posts and notifications are hidden (see exclusions.ts), its accounts stop following the
 * actor and their pending requests are dropped, and its accounts can no longer be followed.
 * Existing follows of the actor are kept. Blocking again changes nothing.
 */
export function blockDomain(deps: Deps, actor: AccountRow, input: string | undefined): void {
  const domain = normalizeUserDomain(input, deps.config.federationAllowLoopback);
  const severed: Severed = { follows: [], requests: [] };
  const at = now();
  const created = deps.db.transaction(() => {
    for (const f of followsWithDomain(deps.db, 'follows', actor.id, domain, true)) sever(deps, f.account_id, actor.id, severed);
    for (const r of followsWithDomain(deps.db, 'follow_requests', actor.id, domain, true)) sever(deps, r.account_id, actor.id, severed);
    if (findDomainBlock(deps.db, actor.id, domain)) return false;
    const row: DomainBlockRow = { id: newId(at), account_id: actor.id, domain, created_at: at };
    insertDomainBlock(deps.db, row);
    return true;
  });
  emitSevered(deps, severed);
  if (created) deps.events.emit('domain_block.created', { accountId: actor.id, domain });
}

/** `actor` unblocks a domain (DELETE /api/v1/domain_blocks); not blocked is not an error. */
export function unblockDomain(deps: Deps, actor: AccountRow, input: string | undefined): void {
  const domain = normalizeUserDomain(input, deps.config.federationAllowLoopback);
  const removed = deps.db.transaction(() => deleteDomainBlock(deps.db, actor.id, domain));
  if (removed > 0) deps.events.emit('domain_block.deleted', { accountId: actor.id, domain });
}

/** A page of the viewer's blocked domains, newest first (paged by the block's id). */
export function listDomainBlocks(deps: Deps, viewerId: string, page: PageBounds): DomainBlockRow[] {
  return domainBlockPage(deps.db, viewerId, page);
}
