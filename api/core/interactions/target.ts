import { findStatusById, type StatusRow } from '../../db/repos/statuses.js';
import { notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { canViewStatus } from '../statuses/visibility.js';

/** Loads a status by id, or undefined when there is none (ids that are not ids included). */
export function findStatus(deps: Deps, statusId: string): StatusRow | undefined {
  return isId(statusId) ? findStatusById(deps.db, statusId) : undefined;
}

/**
 * Loads the status an action is aimed at, as the viewer may see it: 404 when it does not exist or
 * the viewer may not see it (Mastodon answers the same for both, so existence does not leak).
 */
export function loadVisibleStatus(deps: Deps, statusId: string, viewerAccountId: string | null): StatusRow {
  const status = findStatus(deps, statusId);
  if (!status || !canViewStatus(deps, status, viewerAccountId)) throw notFound();
  return status;
}

/**
 * The status an interaction really applies to: a reblog stands for the status it reblogs (Mastodon
 * stores favourites, bookmarks and reblogs on the original, whichever id the client sent).
 */
export function originalOf(deps: Deps, status: StatusRow): StatusRow {
  if (status.reblog_of_id === null) return status;
  const original = findStatusById(deps.db, status.reblog_of_id);
  if (!original) throw notFound();
  return original;
}
