import type { Deps } from '../deps.js';

/**
 * THE rules by which a viewer's blocks, mutes and domain blocks hide accounts, statuses and
 * notifications, as Mastodon applies them. Every listing calls these (as SQL conditions embedded
 * in its query, or through the batch helpers below), so the rules live once:
 *
 * - a block works both ways: neither side sees the other's statuses in timelines, threads,
 *   notifications, search, or among the accounts that favourited or boosted a status;
 * - a domain block hides every account of that domain the same way;
 * - an active mute hides the muted account's statuses (and boosts of them) from the home, list,
 *   public and tag timelines, threads and search; its notifications only when the mute also hides
 *   notifications;
 * - the home and list feeds also leave out statuses that mention an account the viewer blocks or
 *   mutes (Mastodon's home filter);
 * - the viewer's own statuses are never hidden;
 * - a profile shows the owner's statuses even to someone who blocks or mutes them, but not to
 *   someone they block, and its boosts of hidden accounts are left out.
 *
 * Hard visibility (statuses of an author who blocks the viewer answer 404) is part of the
 * visibility rules in core/statuses/visibility.ts, which uses `authorBlocksViewerSql` from here.
 *
 * Every condition reads the named parameter `@viewer_id` (an account id, or NULL for anonymous,
 * for whom nothing is hidden), which the query that embeds it binds.
 */

/**
 * SQLite's clock in ms. The conditions are embedded in other areas' queries, which bind no `@now`;
 * expired mutes are also deleted by a scheduled task (`expireMutes`) that reads the server clock.
 */
const SQL_NOW = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";

const ACTIVE_MUTE = `(xm.expires_at IS NULL OR xm.expires_at > ${SQL_NOW})`;

function viewerBlocksSql(col: string): string {
  return `EXISTS (SELECT 1 FROM blocks xb WHERE xb.account_id = @viewer_id AND xb.target_account_id = ${col})`;
}

function blocksViewerSql(col: string): string {
  return `EXISTS (SELECT 1 FROM blocks xb WHERE xb.account_id = ${col} AND xb.target_account_id = @viewer_id)`;
}

function viewerMutesSql(col: string, notificationsOnly: boolean): string {
  const which = notificationsOnly ? 'AND xm.hide_notifications = 1' : '';
  return `EXISTS (SELECT 1 FROM mutes xm WHERE xm.account_id = @viewer_id AND xm.target_account_id = ${col} ${which} AND ${ACTIVE_MUTE})`;
}

function domainBlockedSql(col: string): string {
  return `EXISTS (SELECT 1 FROM accounts xa JOIN account_domain_blocks xd ON xd.account_id = @viewer_id AND xd.domain = xa.domain
    WHERE xa.id = ${col} AND xa.domain IS NOT NULL)`;
}

// True when the viewer has any block, mute or domain block at all, or is blocked by anyone. It does
// not depend on the row, so SQLite evaluates it once per statement: viewers without any pay nothing.
const VIEWER_HAS_ANY = `(EXISTS (SELECT 1 FROM blocks WHERE account_id = @viewer_id)
  OR EXISTS (SELECT 1 FROM blocks WHERE target_account_id = @viewer_id)
  OR EXISTS (SELECT 1 FROM mutes WHERE account_id = @viewer_id)
  OR EXISTS (SELECT 1 FROM account_domain_blocks WHERE account_id = @viewer_id))`;

/**
 * TRUE when the account whose id is the SQL expression `col` is hidden from the viewer's listings:
 * blocked either way, muted (mute active) or on a domain the viewer blocks.
 */
export function accountHiddenSql(col: string): string {
  return `(${viewerBlocksSql(col)} OR ${blocksViewerSql(col)} OR ${viewerMutesSql(col, false)} OR ${domainBlockedSql(col)})`;
}

/**
 * TRUE when the account `col` is among those Mastodon leaves out of the viewer's account listings
 * such as followers and following (`excluded_from_timeline_account_ids`): blocked either way or
 * muted (mute active). Domain blocks do not count here. FALSE for an anonymous viewer.
 */
export function accountExcludedSql(col: string): string {
  return `(@viewer_id IS NOT NULL AND ${VIEWER_HAS_ANY} AND (${viewerBlocksSql(col)} OR ${blocksViewerSql(col)} OR ${viewerMutesSql(col, false)}))`;
}

/**
 * TRUE when notifications from the account `col` are hidden from the viewer: blocked either way,
 * on a blocked domain, or muted by an active mute that hides notifications.
 */
export function notificationsHiddenSql(col: string): string {
  return `(@viewer_id IS NOT NULL AND ${VIEWER_HAS_ANY} AND (${viewerBlocksSql(col)} OR ${blocksViewerSql(col)}
    OR ${viewerMutesSql(col, true)} OR ${domainBlockedSql(col)}))`;
}

/** TRUE when the author of the status row `alias` blocks the viewer (the hard visibility rule). */
export function authorBlocksViewerSql(alias: string): string {
  return `(@viewer_id IS NOT NULL AND ${blocksViewerSql(`${alias}.account_id`)})`;
}

/**
 * Where a list of statuses is shown, which decides what the viewer's relationships hide:
 * - `feed`: home and list timelines (authors, boosted authors, and mentions of blocked or muted accounts);
 * - `timeline`: public and tag timelines and search (authors and boosted authors);
 * - `thread`: a status's context (authors);
 * - `profile`: an account's statuses (only when the owner blocks the viewer, and boosts of hidden accounts).
 */
export type ListingKind = 'feed' | 'timeline' | 'thread' | 'profile';

function reblogHiddenSql(alias: string): string {
  return `(${alias}.reblog_of_id IS NOT NULL AND EXISTS (SELECT 1 FROM statuses xo WHERE xo.id = ${alias}.reblog_of_id
    AND xo.account_id <> @viewer_id AND ${accountHiddenSql('xo.account_id')}))`;
}

function mentionsHiddenSql(alias: string): string {
  return `EXISTS (SELECT 1 FROM mentions xn WHERE xn.status_id IN (${alias}.id, ${alias}.reblog_of_id) AND xn.silent = 0
    AND xn.account_id <> @viewer_id AND (${viewerBlocksSql('xn.account_id')} OR ${viewerMutesSql('xn.account_id', false)}))`;
}

/**
 * A condition (TRUE when shown) over the status row `alias` applying the viewer's blocks, mutes
 * and domain blocks for a listing of the given kind. Combine it with the visibility rule.
 */
export function statusShownSql(alias: string, kind: ListingKind): string {
  const a = alias;
  const hidden: string[] = [];
  if (kind === 'profile') hidden.push(blocksViewerSql(`${a}.account_id`));
  else hidden.push(accountHiddenSql(`${a}.account_id`));
  if (kind !== 'thread') hidden.push(reblogHiddenSql(a));
  if (kind === 'feed') hidden.push(mentionsHiddenSql(a));
  return `(@viewer_id IS NULL OR ${a}.account_id = @viewer_id OR NOT ${VIEWER_HAS_ANY} OR NOT (${hidden.join(' OR ')}))`;
}

/**
 * Wraps a visibility condition builder (core's `statusVisibilitySql`) so that it also applies the
 * viewer's blocks, mutes and domain blocks for a listing: what timeline queries take as `visible`.
 */
export function excluding(visible: (alias: string) => string, kind: ListingKind): (alias: string) => string {
  return (alias) => `(${visible(alias)} AND ${statusShownSql(alias, kind)})`;
}

/** Of `ids`, the statuses the viewer's relationships hide from a listing of `kind` (one query). */
export function hiddenStatusIds(deps: Deps, viewerId: string | null, ids: readonly string[], kind: ListingKind): Set<string> {
  if (viewerId === null || ids.length === 0) return new Set();
  const rows = deps.db
    .query<{ id: string }>(
      `SELECT s.id FROM statuses s WHERE s.id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids)) AND NOT ${statusShownSql('s', kind)}`,
    )
    .all({ ids: JSON.stringify([...new Set(ids)]), viewer_id: viewerId });
  return new Set(rows.map((r) => r.id));
}

/** Of `ids`, the accounts hidden from the viewer's listings (blocked either way, muted, domain-blocked). */
export function hiddenAccountIds(deps: Deps, viewerId: string | null, ids: readonly string[]): Set<string> {
  if (viewerId === null || ids.length === 0) return new Set();
  const rows = deps.db
    .query<{ id: string }>(
      `SELECT a.id FROM accounts a WHERE a.id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))
       AND a.id <> @viewer_id AND ${VIEWER_HAS_ANY} AND ${accountHiddenSql('a.id')}`,
    )
    .all({ ids: JSON.stringify([...new Set(ids)]), viewer_id: viewerId });
  return new Set(rows.map((r) => r.id));
}

/** True when notifications from `fromAccountId` to `recipientId` are not to be made (see `notificationsHiddenSql`). */
export function notificationsSuppressed(deps: Deps, recipientId: string, fromAccountId: string): boolean {
  if (recipientId === fromAccountId) return false;
  return deps.db.query(`SELECT 1 WHERE ${notificationsHiddenSql('@from_account_id')}`).get({ viewer_id: recipientId, from_account_id: fromAccountId }) !== undefined;
}
