import { inviterAccountIds, userIpsOf } from '../../db/repos/admin-accounts.js';
import { findUsersByAccountIds } from '../../db/repos/users.js';
import { toMastodonAdminAccount, type AdminAccount, type AdminAccountView, type AdminUserView } from '../../serializers/admin-account.js';
import { notFound } from '../../util/errors.js';
import { loadAccountViews } from '../accounts/views.js';
import type { Deps } from '../deps.js';
import { getInstanceSetting } from '../instance/settings.js';
import { rolesOf } from '../roles/access.js';

/**
 * Loads accounts with everything the Admin::Account entity needs, in a fixed number of queries:
 * their account views, and for local ones their user, role, addresses and inviter. Unknown ids
 * are left out of the map. A user who never chose a locale (or chose one Hearth does not know) has
 * the instance's default, its first language ('en' unless changed): Mastodon gives every user the
 * locale they signed up in, falling back to its default locale, and clients expect a string.
 */
export function loadAdminAccountViews(deps: Deps, ids: readonly string[]): Map<string, AdminAccountView> {
  const views = loadAccountViews(deps, ids);
  const users = findUsersByAccountIds(deps.db, [...views.values()].filter((v) => v.account.domain === null).map((v) => v.account.id));
  const userRows = [...users.values()];
  const roles = rolesOf(deps, userRows);
  const roleByUser = new Map(userRows.map((u, i) => [u.id, roles[i]]));
  const ipsByUser = new Map<string, { ip: string; usedAt: number }[]>();
  for (const row of userIpsOf(deps.db, userRows.map((u) => u.id))) {
    let list = ipsByUser.get(row.user_id);
    if (!list) ipsByUser.set(row.user_id, (list = []));
    list.push({ ip: row.ip, usedAt: row.used_at });
  }
  const inviters = inviterAccountIds(deps.db, userRows.filter((u) => u.invite_id !== null).map((u) => u.id));
  // Read only when needed: most users have a locale.
  const defaultLocale = userRows.some((u) => u.locale === null) ? (getInstanceSetting(deps, 'languages')[0] ?? 'en') : '';

  const out = new Map<string, AdminAccountView>();
  for (const [id, view] of views) {
    const u = users.get(id);
    const role = u ? roleByUser.get(u.id) : undefined;
    const user: AdminUserView | null =
      u && role
        ? {
            email: u.email,
            locale: u.locale ?? defaultLocale,
            confirmed: u.confirmed_at !== null,
            approved: u.approved === 1,
            disabled: u.disabled === 1,
            inviteRequest: u.sign_up_reason,
            role,
            ips: ipsByUser.get(u.id) ?? [],
            createdByApplicationId: u.created_by_application_id,
            invitedByAccountId: inviters.get(u.id) ?? null,
          }
        : null;
    out.set(id, { view, user });
  }
  return out;
}

/** Admin::Account entities for the given ids, in that order, unknown ids left out. */
export function presentAdminAccounts(deps: Deps, ids: readonly string[]): AdminAccount[] {
  const views = loadAdminAccountViews(deps, ids);
  return ids.flatMap((id) => {
    const v = views.get(id);
    return v ? [toMastodonAdminAccount(v, deps.uris)] : [];
  });
}

/** The Admin::Account of one account, or 404 (Mastodon's "Record not found"). */
export function presentAdminAccount(deps: Deps, id: string): AdminAccount {
  const [entity] = presentAdminAccounts(deps, [id]);
  if (!entity) throw notFound();
  return entity;
}
