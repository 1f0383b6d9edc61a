import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import { findReportsByIds, hasUnresolvedSiblings } from '../../db/repos/reports.js';
import { findUserById } from '../../db/repos/users.js';
import { PERMISSION } from '../../util/permissions.js';
import type { Deps } from '../deps.js';
import { notifyStaffOfPendingSignUp, sendConfirmation, staffWithPermission } from './account-mail.js';
import { approvedMail, newReportMail } from './messages.js';
import { queueMail } from './outbox.js';

/** `@user` for local accounts, `@user@domain` for remote ones. */
function handle(account: AccountRow | undefined): string {
  if (!account) return 'someone';
  return account.domain === null ? `@${account.username}` : `@${account.username}@${account.domain}`;
}

/** Mails the staff who handle reports about a new one, unless another report about the same account is still open (as Mastodon). */
function mailStaffAboutReport(deps: Deps, reportId: string): void {
  const report = findReportsByIds(deps.db, [reportId]).get(reportId);
  if (!report || hasUnresolvedSiblings(deps.db, report)) return;
  const reporter = findAccountById(deps.db, report.account_id);
  const target = findAccountById(deps.db, report.target_account_id);
  const statusIds: unknown = JSON.parse(report.status_ids);
  const text = newReportMail({
    reportId: report.id,
    domain: deps.uris.domain,
    reporter: handle(reporter),
    target: handle(target),
    category: report.category,
    comment: report.comment,
    statusCount: Array.isArray(statusIds) ? statusIds.length : 0,
    remote: reporter !== undefined && reporter.domain !== null,
  });
  queueMail(
    deps,
    staffWithPermission(deps, PERMISSION.manageReports).map((staff) => ({ kind: 'new_report' as const, to: staff.email ?? '', userId: staff.id, ...text })),
  );
}

/**
 * Subscribes the instance's mail to core events: a sign-up whose address needs confirming gets
 * its link; one waiting for approval (once confirmed) is told to the staff who approve sign-ups;
 * an approved one is told to the user; a new report (filed here or received from another server)
 * is told to the staff who handle reports. Returns the functions that unsubscribe. Sending is the
 * outbox's business (core/mail/outbox.ts), resumed by the job scheduler (`resumeMailDelivery`).
 */
export function installMail(deps: Deps): (() => void)[] {
  return [
    deps.events.on('user.signed_up', ({ userId, approved }) => {
      const user = findUserById(deps.db, userId);
      if (!user) return;
      if (user.confirmed_at === null) sendConfirmation(deps, user);
      else if (!approved) notifyStaffOfPendingSignUp(deps, user);
    }),
    deps.events.on('user.approved', ({ userId, accountId }) => {
      const user = findUserById(deps.db, userId);
      if (!user?.email) return;
      const text = approvedMail({ username: findAccountById(deps.db, accountId)?.username ?? 'user', domain: deps.uris.domain, base: deps.uris.base });
      queueMail(deps, [{ kind: 'approved', to: user.email, userId, ...text }]);
    }),
    deps.events.on('report.created', ({ reportId }) => mailStaffAboutReport(deps, reportId)),
  ];
}
