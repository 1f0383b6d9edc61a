import { findAccountById } from '../../db/repos/accounts.js';
import { findStatusById } from '../../db/repos/statuses.js';
import type { Deps } from '../deps.js';
import { queueWebhookEvent } from './delivery.js';

/** Whether an account is one of this instance's. */
function isLocalAccount(deps: Deps, accountId: string): boolean {
  return findAccountById(deps.db, accountId)?.domain === null;
}

/** Whether a status was written here. */
function isLocalStatus(deps: Deps, statusId: string): boolean {
  return findStatusById(deps.db, statusId)?.local === 1;
}

/**
 * Subscribes webhooks to core events, as Mastodon triggers them: a local account created,
 * approved or updated; a report filed (here, or received from another server) or changed; a local
 * status posted or edited. Returns the functions that unsubscribe. Due requests are also resumed by
 * the job scheduler (`resumeWebhookDeliveries`).
 */
export function installWebhooks(deps: Deps): (() => void)[] {
  return [
    deps.events.on('account.created', ({ accountId }) => queueWebhookEvent(deps, 'account.created', accountId, () => isLocalAccount(deps, accountId))),
    deps.events.on('user.approved', ({ accountId }) => queueWebhookEvent(deps, 'account.approved', accountId)),
    deps.events.on('account.updated', ({ accountId }) => queueWebhookEvent(deps, 'account.updated', accountId, () => isLocalAccount(deps, accountId))),
    deps.events.on('report.created', ({ reportId }) => queueWebhookEvent(deps, 'report.created', reportId)),
    deps.events.on('report.updated', ({ reportId }) => queueWebhookEvent(deps, 'report.updated', reportId)),
    deps.events.on('status.created', ({ statusId }) => queueWebhookEvent(deps, 'status.created', statusId, () => isLocalStatus(deps, statusId))),
    deps.events.on('status.updated', ({ statusId }) => queueWebhookEvent(deps, 'status.updated', statusId, () => isLocalStatus(deps, statusId))),
  ];
}
