import { acceptedQuotesPage, findQuoteOfStatus, setQuotePolicy } from '../../db/repos/quotes.js';
import type { UserRow } from '../../db/repos/users.js';
import type { MastodonStatus } from '../../serializers/status.js';
import { ApiError, forbidden, notFound } from '../../util/errors.js';
import { getUserSettings } from '../accounts/settings.js';
import type { Deps } from '../deps.js';
import { hiddenStatusIds } from '../relationships/exclusions.js';
import { localPolicyFlags, parseQuotePolicy, policyOf } from './quote-policy.js';
import { rejectQuote } from './quotes.js';
import { loadOwnStatus, loadVisibleStatus } from './read.js';
import { presentStatus, presentStatuses } from './views.js';
import { visibleStatusIds } from './visibility.js';

/** A page of quotes of a status, with the quote ids that page on (Link header). */
export interface QuotesPage {
  statuses: MastodonStatus[];
  /** `max_id` of the next (older) page, when the page was full. */
  next: string | null;
  /** `since_id` of the previous (newer) page, when the page was not empty. */
  prev: string | null;
}

/**
 * GET /api/v1/statuses/:id/quotes: the accepted quotes of a status the viewer can see (404
 * otherwise), newest first, paged by quote id as Mastodon pages them (`max_id`, `since_id`). Quotes
 * the viewer may not see are left out, and, unless the viewer wrote the quoted status, those of
 * accounts or domains they block or mute; the cursors are taken before that, so paging goes on.
 */
export function listQuotes(deps: Deps, statusId: string, viewerId: string, page: { maxId?: string | undefined; sinceId?: string | undefined; limit: number }): QuotesPage {
  const status = loadVisibleStatus(deps, statusId, viewerId);
  const rows = acceptedQuotesPage(deps.db, status.id, page);
  const ids = rows.map((q) => q.status_id);
  const visible = visibleStatusIds(deps, ids, viewerId);
  const hidden = status.account_id === viewerId ? new Set<string>() : hiddenStatusIds(deps, viewerId, ids, 'thread');
  return {
    statuses: presentStatuses(deps, ids.filter((id) => visible.has(id) && !hidden.has(id)), viewerId),
    next: rows.length === page.limit ? (rows.at(-1)?.id ?? null) : null,
    prev: rows[0]?.id ?? null,
  };
}

/**
 * POST /api/v1/statuses/:id/quotes/:quoting_status_id/revoke: the author of a status withdraws a
 * quote of it. 404 when the status is not visible or that status does not quote it, 403 when the
 * status is not the caller's. An accepted quote becomes revoked ('quote.revoked': federation sends
 * the Delete of the authorization), a pending one rejected. Answers the quoting status.
 */
export function revokeQuote(deps: Deps, accountId: string, quotedStatusId: string, quotingStatusId: string): MastodonStatus {
  const quoted = loadVisibleStatus(deps, quotedStatusId, accountId);
  const quote = findQuoteOfStatus(deps.db, quotingStatusId);
  if (!quote || quote.quoted_status_id !== quoted.id) throw notFound();
  if (quote.quoted_account_id !== accountId) throw forbidden();
  rejectQuote(deps, quote);
  const entity = presentStatus(deps, quote.status_id, accountId);
  if (!entity) throw notFound();
  return entity;
}

/**
 * PUT /api/v1/statuses/:id/interaction_policy: who may quote one of the caller's statuses (404 for
 * anything else, reblogs included). Without `quote_approval_policy`, the user's default applies,
 * as in Mastodon; a private or direct status stays quotable by its author only. Past quotes are
 * not touched. Emits 'status.quote_policy_updated' when the policy changed.
 */
export function updateInteractionPolicy(deps: Deps, accountId: string, user: UserRow, statusId: string, policyParam: unknown): MastodonStatus {
  const status = loadOwnStatus(deps, statusId, accountId);
  const policy = parseQuotePolicy(policyParam) ?? getUserSettings(user).default_quote_policy;
  const flags = localPolicyFlags(policy, status.visibility);
  const current = policyOf(deps, status.id);
  if (flags.automatic !== current.automatic || flags.manual !== current.manual) {
    deps.db.transaction(() => setQuotePolicy(deps.db, status.id, flags));
    deps.events.emit('status.quote_policy_updated', { statusId: status.id, accountId });
  }
  const entity = presentStatus(deps, status.id, accountId);
  if (!entity) throw new ApiError(404, 'Record not found');
  return entity;
}
