import type { AccountRow } from '../../db/repos/accounts.js';
import { bumpAccountStatuses, bumpStatusCounter, deleteStatusRow, findReblogBy, insertStatus, type Visibility } from '../../db/repos/statuses.js';
import type { UserRow } from '../../db/repos/users.js';
import { statusUri } from '../../serializers/status.js';
import { now } from '../../util/clock.js';
import { forbidden } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import { getUserSettings } from '../accounts/settings.js';
import { reblogTargetOf } from '../statuses/delete.js';
import type { Deps } from '../deps.js';
import { findStatus, loadVisibleStatus, originalOf } from './target.js';

/** The visibilities a reblog may be given (Mastodon's `visibility` parameter of POST …/reblog). */
export type ReblogVisibility = 'public' | 'unlisted' | 'private';

/**
 * Reblogs (boosts) a status and returns the reblog's id. Rules, as Mastodon's ReblogService and
 * StatusPolicy#reblog? apply them:
 * - the status must be visible to the account (404 otherwise); a reblog's id reblogs its original;
 * - direct statuses cannot be reblogged, private ones only by their author (403);
 * - reblogging again returns the existing reblog;
 * - a private status's reblog keeps the status's visibility; otherwise the `visibility` asked for,
 *   else the user's default posting visibility.
 */
export function reblogStatus(
  deps: Deps,
  account: AccountRow,
  user: UserRow,
  statusId: string,
  visibility: ReblogVisibility | undefined,
  applicationId: string | null,
): string {
  const target = originalOf(deps, loadVisibleStatus(deps, statusId, account.id));
  if (target.visibility === 'direct' || (target.visibility === 'private' && target.account_id !== account.id)) throw forbidden();
  const at = now();
  const reblogId = newId(at);
  const chosen: Visibility = target.visibility === 'private' ? 'private' : (visibility ?? defaultReblogVisibility(user));
  const created = deps.db.transaction(() => {
    // Checked inside the transaction: two concurrent requests must not both insert.
    const existing = findReblogBy(deps.db, account.id, target.id);
    if (existing) return existing.id;
    insertStatus(deps.db, {
      id: reblogId,
      account_id: account.id,
      local: 1,
      visibility: chosen,
      reblog_of_id: target.id,
      application_id: applicationId,
      created_at: at,
      updated_at: at,
    });
    bumpStatusCounter(deps.db, target.id, 'reblogs_count', 1);
    // Reblogs count as statuses of the account, as Mastodon counts them.
    bumpAccountStatuses(deps.db, account.id, 1, at);
    return null;
  });
  if (created !== null) return created;
  deps.events.emit('status.created', { statusId: reblogId, accountId: account.id });
  deps.events.emit('reblog.created', { statusId: reblogId, reblogOfId: target.id, accountId: account.id });
  return reblogId;
}

// A direct default would make a reblog nobody but the booster could see; Mastodon's settings page
// does not offer it for boosts, so it falls back to followers-only.
function defaultReblogVisibility(user: UserRow): Visibility {
  const privacy = getUserSettings(user).default_privacy;
  return privacy === 'direct' ? 'private' : privacy;
}

/**
 * Undoes the account's reblog of a status (named by the original's id, or by a reblog's id) and
 * returns the original's id, to answer with it. Without a reblog, the status must be visible
 * (404 otherwise) and is answered unchanged.
 */
export function unreblogStatus(deps: Deps, account: AccountRow, statusId: string): string {
  const named = findStatus(deps, statusId);
  const target = named ? originalOf(deps, named) : undefined;
  const removed = target
    ? deps.db.transaction(() => {
        const reblog = findReblogBy(deps.db, account.id, target.id);
        if (!reblog) return undefined;
        deleteStatusRow(deps.db, reblog.id);
        bumpStatusCounter(deps.db, target.id, 'reblogs_count', -1);
        bumpAccountStatuses(deps.db, account.id, -1, null);
        return reblog;
      })
    : undefined;
  if (!removed || !target) return originalOf(deps, loadVisibleStatus(deps, statusId, account.id)).id;
  deps.events.emit('reblog.deleted', { statusId: removed.id, reblogOfId: target.id, accountId: account.id });
  deps.events.emit('status.deleted', {
    statusId: removed.id,
    accountId: account.id,
    uri: statusUri(removed, account, deps.uris),
    visibility: removed.visibility,
    mentionedAccountIds: [],
    reblogOfId: target.id,
    reblogOf: reblogTargetOf(deps, removed),
    inReplyToAccountId: null,
  });
  return target.id;
}
