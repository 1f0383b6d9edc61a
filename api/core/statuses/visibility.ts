import { findAccountById } from '../../db/repos/accounts.js';
import { findBlock } from '../../db/repos/blocks.js';
import type { StatusRow } from '../../db/repos/statuses.js';
import type { Deps } from '../deps.js';
import { authorBlocksViewerSql } from '../relationships/exclusions.js';

/**
 * THE visibility rule set. Every path that returns statuses (timelines, context, account statuses,
 * notifications, favourites, bookmarks, search, streaming) applies these two, so the rules live once:
 *
 * - public and unlisted: everyone, anonymous included (unlisted only stays out of the public and
 *   tag timelines, which those timelines decide themselves);
 * - private: the author, the author's followers and the accounts the status mentions;
 * - direct: the author and the accounts the status mentions (silent mentions included, as a
 *   group's followers are addressed that way);
 * - an author who blocks the viewer hides their public and unlisted statuses from them (Mastodon's
 *   StatusPolicy; a block also ends follows both ways, which settles private ones);
 * - a suspended author's statuses are seen by nobody (StatusPolicy's unavailable author).
 *
 * What blocks, mutes and domain blocks hide from listings lives in core/relationships/exclusions.ts.
 */

/**
 * An SQL condition (no leading AND) that is true when the viewer may see the status row `alias`.
 * It reads the named parameter `@viewer_id` (an account id, or NULL for anonymous), which the
 * caller binds. Example: `SELECT s.* FROM statuses s WHERE ${statusVisibilitySql('s')} …`.
 */
export function statusVisibilitySql(alias: string): string {
  const a = alias;
  return `(NOT EXISTS (SELECT 1 FROM accounts vsa WHERE vsa.id = ${a}.account_id AND vsa.suspended_at IS NOT NULL)
    AND ((${a}.visibility IN ('public', 'unlisted') AND NOT ${authorBlocksViewerSql(a)})
    OR (${a}.visibility IN ('private', 'direct') AND @viewer_id IS NOT NULL AND (
    ${a}.account_id = @viewer_id
    OR EXISTS (SELECT 1 FROM mentions vm WHERE vm.status_id = ${a}.id AND vm.account_id = @viewer_id)
    OR (${a}.visibility = 'private' AND EXISTS (SELECT 1 FROM follows vf WHERE vf.account_id = @viewer_id AND vf.target_account_id = ${a}.account_id))
  ))))`;
}

/**
 * True when the viewer (an account id, or null for anonymous) may see the status; the same rules
 * as `statusVisibilitySql`, for one row already loaded. For a reblog, the reblogged status must be
 * visible too.
 */
export function canViewStatus(deps: Deps, status: StatusRow, viewerAccountId: string | null): boolean {
  if (!canViewOne(deps, status, viewerAccountId)) return false;
  if (status.reblog_of_id === null) return true;
  const target = deps.db.query<StatusRow>('SELECT * FROM statuses WHERE id = ?').get(status.reblog_of_id);
  return target !== undefined && canViewOne(deps, target, viewerAccountId);
}

function canViewOne(deps: Deps, status: StatusRow, viewerAccountId: string | null): boolean {
  if (authorSuspended(deps, status)) return false;
  if (status.visibility === 'public' || status.visibility === 'unlisted') {
    return viewerAccountId === null || findBlock(deps.db, status.account_id, viewerAccountId) === undefined;
  }
  if (viewerAccountId === null) return false;
  if (status.account_id === viewerAccountId) return true;
  const row = deps.db
    .query(
      `SELECT 1 FROM mentions WHERE status_id = @status_id AND account_id = @viewer_id
       UNION ALL
       SELECT 1 FROM follows WHERE @visibility = 'private' AND account_id = @viewer_id AND target_account_id = @account_id
       LIMIT 1`,
    )
    .get({ status_id: status.id, viewer_id: viewerAccountId, visibility: status.visibility, account_id: status.account_id });
  return row !== undefined;
}

/**
 * Of `ids`, those the viewer may see (order not kept), in one query: for batches such as a
 * thread's ancestors and descendants or `GET /api/v1/statuses?id[]=`.
 */
export function visibleStatusIds(deps: Deps, ids: readonly string[], viewerAccountId: string | null): Set<string> {
  if (ids.length === 0) return new Set();
  const rows = deps.db
    .query<{ id: string }>(
      `SELECT s.id FROM statuses s
       LEFT JOIN statuses r ON r.id = s.reblog_of_id
       WHERE s.id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids)) AND ${statusVisibilitySql('s')}
         AND (s.reblog_of_id IS NULL OR (r.id IS NOT NULL AND ${statusVisibilitySql('r')}))`,
    )
    .all({ ids: JSON.stringify([...new Set(ids)]), viewer_id: viewerAccountId });
  return new Set(rows.map((r) => r.id));
}

/** Whether a moderator suspended the status's author (core/admin): then nobody sees it. */
function authorSuspended(deps: Deps, status: StatusRow): boolean {
  return (findAccountById(deps.db, status.account_id)?.suspended_at ?? null) !== null;
}
