import { hasUnresolvedReportsAbout, insertAccountWarning, purgeAccountDependents, resolveReports } from '../../db/repos/admin-accounts.js';
import { findAccountsByIds, updateAccount, type AccountRow } from '../../db/repos/accounts.js';
import { followEdgesOf } from '../../db/repos/deleted-actors.js';
import { findReportsByIds } from '../../db/repos/reports.js';
import { findUserByAccountId, updateUser, type UserRow } from '../../db/repos/users.js';
import type { AdminAccount } from '../../serializers/admin-account.js';
import { now } from '../../util/clock.js';
import { forbidden, notFound, unprocessable } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import { PERMISSION, roleOutranks } from '../../util/permissions.js';
import type { Deps } from '../deps.js';
import { deleteRemoteAccount, purgeAccount } from '../federation/delete-actor.js';
import { requireAnyPermission, requirePermission, roleOf } from '../roles/access.js';
import type { AdminActor } from './accounts.js';
import { findAdminTarget } from './accounts.js';
import { rejectRemoteFollows, unmergeFromFollowerHomes } from './accounts-effects.js';
import { presentAdminAccount } from './accounts-view.js';

/** The actions of POST /api/v1/admin/accounts/:id/action. */
export const ACCOUNT_ACTIONS = ['none', 'disable', 'sensitive', 'silence', 'suspend'] as const;
export type AccountActionType = (typeof ACCOUNT_ACTIONS)[number];

/** What the moderator sends with an action. */
export interface AccountActionInput {
  type?: string | undefined;
  reportId?: string | undefined;
  warningPresetId?: string | undefined;
  text?: string | undefined;
  /** Mastodon's default is true. */
  sendEmailNotification?: boolean | undefined;
}

/**
 * Whether the actor's role ranks above the target's (Mastodon's `overrides?`): staff act only on
 * accounts below them, never on themselves; a remote account has no role and is below everyone.
 */
function outranksTarget(deps: Deps, actor: AdminActor, target: AccountRow, user: UserRow | undefined): boolean {
  if (target.id === actor.account.id) return false;
  if (!user) return true;
  return roleOutranks(roleOf(deps, actor.user), roleOf(deps, user));
}

/**
 * Takes an action against an account, as Mastodon's Admin::AccountAction: `disable` (a local
 * login), `sensitive`, `silence`, `suspend`, or `none` (a warning only). Needs "Manage Users" or
 * "Manage Reports", and a role above the target's (403 otherwise; a remote account cannot be
 * disabled). A warning (strike) records the action with the text and the report (and the report's
 * statuses); then the reports it settles are resolved: the given one for `none`, every open report
 * about the account otherwise. A missing or unknown type is 422; an unknown report or warning
 * preset is 404 (Hearth has no warning presets). Nothing is written when any check fails.
 */
export function takeAccountAction(deps: Deps, actor: AdminActor, id: string, input: AccountActionInput): void {
  requireAnyPermission(deps, actor.user, [PERMISSION.manageUsers, PERMISSION.manageReports]);
  const target = findAdminTarget(deps, id);
  const notIncluded = { error: 'ERR_INCLUSION', description: 'is not included in the list' };
  if (!input.type) {
    throw unprocessable("Validation failed: Type can't be blank, Type is not included in the list", {
      details: { type: [{ error: 'ERR_BLANK', description: "can't be blank" }, notIncluded] },
    });
  }
  if (!(ACCOUNT_ACTIONS as readonly string[]).includes(input.type)) {
    throw unprocessable('Validation failed: Type is not included in the list', { details: { type: [notIncluded] } });
  }
  const type = input.type as AccountActionType;
  const report = input.reportId ? findReportsByIds(deps.db, [input.reportId]).get(input.reportId) : undefined;
  if (input.reportId && !report) throw notFound();
  if (input.warningPresetId) throw notFound();
  const user = target.domain === null ? findUserByAccountId(deps.db, target.id) : undefined;
  if (type !== 'none' && !outranksTarget(deps, actor, target, user)) throw forbidden();
  if (type === 'disable' && !user) throw forbidden();
  // Settling reports is handling them: that takes "Manage Reports" (Mastodon authorizes each one
  // it resolves, so an action that settles none does not need it).
  const settles = type === 'none' ? report !== undefined : hasUnresolvedReportsAbout(deps.db, target.id);
  if (settles) requirePermission(deps, actor.user, PERMISSION.manageReports);

  const at = now();
  const warningId = newId(at);
  const newlySuspended = type === 'suspend' && target.suspended_at === null;
  deps.db.transaction(() => {
    if (type === 'disable' && user) updateUser(deps.db, user.id, { disabled: 1, updated_at: at });
    if (type === 'sensitive' && target.sensitized_at === null) updateAccount(deps.db, target.id, { sensitized_at: at, updated_at: at });
    if (type === 'silence' && target.silenced_at === null) updateAccount(deps.db, target.id, { silenced_at: at, updated_at: at });
    if (newlySuspended) updateAccount(deps.db, target.id, { suspended_at: at, updated_at: at });
    insertAccountWarning(deps.db, {
      id: warningId,
      account_id: actor.account.id,
      target_account_id: target.id,
      action: type,
      text: input.text ?? '',
      report_id: report?.id ?? null,
      status_ids: report ? report.status_ids : null,
      created_at: at,
    });
    if (type === 'none') {
      if (report) resolveReports(deps.db, { reportIds: [report.id] }, actor.account.id, at);
    } else {
      resolveReports(deps.db, { targetAccountId: target.id }, actor.account.id, at);
    }
  });

  if (newlySuspended) {
    unmergeFromFollowerHomes(deps, target.id);
    rejectRemoteFollows(deps, { ...target, suspended_at: at });
  }
  if (type !== 'none') deps.events.emit('account.updated', { accountId: target.id });
  deps.events.emit('account.warned', {
    warningId,
    accountId: actor.account.id,
    targetAccountId: target.id,
    action: type,
    notify: (input.sendEmailNotification ?? true) && target.domain === null,
  });
}

/**
 * Deletes the data of a suspended account for good (DELETE /api/v1/admin/accounts/:id), as
 * Mastodon's deletion of a suspended account: needs "Delete User Data"; 403 unless the account is
 * suspended and not deleted already. Answers with the account as it was.
 *
 * A remote account goes as when it deletes itself (core/federation/delete-actor.ts): its row and
 * everything on it, and what it sends later is ignored. A local account loses its statuses,
 * follows, favourites and everything else hanging on it, its user (login, tokens, e-mail) and its
 * profile, but its row stays, suspended: the name is never given to anyone else (peers remember
 * the actor and its key), and reports and warnings about it are kept. Its actor then answers 410
 * Gone, and 'account.data_deleted' names the remote accounts that followed it or that it followed
 * (read before the follows go), to which federation sends Delete of the actor, as Mastodon does.
 */
export async function deleteAccountData(deps: Deps, actor: AdminActor, id: string): Promise<AdminAccount> {
  requirePermission(deps, actor.user, PERMISSION.deleteUserData);
  const target = findAdminTarget(deps, id);
  if (target.suspended_at === null) throw forbidden();
  const user = target.domain === null ? findUserByAccountId(deps.db, target.id) : undefined;
  // A local account without its user is one whose data was deleted already.
  if (target.domain === null && !user) throw forbidden();
  const before = presentAdminAccount(deps, target.id);
  if (target.domain !== null) {
    await deleteRemoteAccount(deps, target);
    return before;
  }
  const edges = followEdgesOf(deps.db, 'follows', target.id);
  const others = [...new Set(edges.map((e) => (e.account_id === target.id ? e.target_account_id : e.account_id)))];
  const remoteAccountIds = [...findAccountsByIds(deps.db, others).values()].filter((a) => a.domain !== null).map((a) => a.id);
  await purgeAccount(deps, target, {
    withRelations: (db, at) => {
      purgeAccountDependents(db, target.id, ['reports', 'account_warnings']);
      updateAccount(db, target.id, {
        display_name: '',
        note: '',
        note_source: '',
        fields: '[]',
        avatar_file: null,
        avatar_static_file: null,
        header_file: null,
        header_static_file: null,
        also_known_as: '[]',
        attribution_domains: '[]',
        discoverable: null,
        indexable: 0,
        locked: 0,
        statuses_count: 0,
        followers_count: 0,
        following_count: 0,
        last_status_at: null,
        updated_at: at,
      });
    },
  });
  deps.events.emit('account.updated', { accountId: target.id });
  deps.events.emit('account.data_deleted', { accountId: target.id, remoteAccountIds });
  return before;
}
