import { favouritesOfStatus, reblogsOfStatus } from '../../db/repos/interactions.js';
import type { PageBounds } from '../../db/paging.js';
import type { Deps } from '../deps.js';
import { hiddenAccountIds } from '../relationships/exclusions.js';
import { loadVisibleStatus } from './target.js';

/** A page of accounts that acted on a status, with the paging cursor of each (not the account id). */
export interface ActorPage {
  accountIds: string[];
  /** Cursors for the Link header: the first and last row's id (favourite id, or reblog status id). */
  cursors: { first: string; last: string } | null;
}

function toPage(deps: Deps, viewerAccountId: string | null, rows: { id: string; account_id: string }[]): ActorPage {
  const first = rows[0];
  const last = rows[rows.length - 1];
  // Accounts the viewer blocks, mutes or domain-blocks (or who block the viewer) are left out;
  // the cursors still span the whole page so that paging goes on past them.
  const hidden = hiddenAccountIds(deps, viewerAccountId, rows.map((r) => r.account_id));
  return {
    accountIds: rows.map((r) => r.account_id).filter((id) => !hidden.has(id)),
    cursors: first && last ? { first: first.id, last: last.id } : null,
  };
}

/**
 * The accounts that reblogged a status the viewer may see (404 otherwise), newest first, paged by
 * the reblogs' ids as Mastodon pages them.
 */
export function rebloggedBy(deps: Deps, statusId: string, viewerAccountId: string | null, page: PageBounds): ActorPage {
  const status = loadVisibleStatus(deps, statusId, viewerAccountId);
  return toPage(deps, viewerAccountId, reblogsOfStatus(deps.db, status.id, page));
}

/** The accounts that favourited a status the viewer may see (404 otherwise), paged by favourite id. */
export function favouritedBy(deps: Deps, statusId: string, viewerAccountId: string | null, page: PageBounds): ActorPage {
  const status = loadVisibleStatus(deps, statusId, viewerAccountId);
  return toPage(deps, viewerAccountId, favouritesOfStatus(deps.db, status.id, page));
}
