import { isoTime } from '../util/clock.js';
import type { RoleDefinition } from '../util/permissions.js';
import type { Uris } from '../util/uris.js';
import { toMastodonAccount, unicodeDomain, type Account, type AccountView } from './account.js';
import { toMastodonRole, type Role } from './role.js';

/** Mastodon's Admin::Ip: an address a user used, and when last. */
export interface AdminIp {
  ip: string;
  used_at: string;
}

/** Mastodon's Admin::Account entity, as staff see an account. */
export interface AdminAccount {
  id: string;
  username: string;
  /** The account's domain (Unicode), or null for a local account. */
  domain: string | null;
  created_at: string;
  /** The user's e-mail address; null for remote accounts (no user). */
  email: string | null;
  /** The address the user last used (the first of `ips`), or null. */
  ip: string | null;
  ips: AdminIp[];
  locale: string | null;
  /** The reason given at sign-up, when registrations need approval. */
  invite_request: string | null;
  /** The user's role; null for remote accounts (no user). */
  role: Role | null;
  confirmed: boolean | null;
  approved: boolean | null;
  disabled: boolean | null;
  sensitized: boolean;
  silenced: boolean;
  suspended: boolean;
  account: Account;
  created_by_application_id?: string;
  invited_by_account_id?: string;
}

/** What staff see of a local account's user, loaded by core (core/admin/accounts-view.ts). */
export interface AdminUserView {
  email: string | null;
  /** The user's locale, or the instance's default for one who never chose one. */
  locale: string;
  confirmed: boolean;
  approved: boolean;
  disabled: boolean;
  inviteRequest: string | null;
  role: RoleDefinition;
  /** Known addresses (sign-up and sign-ins), most recently used first. */
  ips: { ip: string; usedAt: number }[];
  createdByApplicationId: string | null;
  invitedByAccountId: string | null;
}

/** An account with what the Admin::Account entity needs: its view, and its user for local ones. */
export interface AdminAccountView {
  view: AccountView;
  user: AdminUserView | null;
}

/**
 * The Admin::Account of a loaded account. A remote account (or a local one whose user is gone)
 * has no user: its e-mail, role, locale and user flags are null, as Mastodon serializes them.
 * `created_by_application_id` and `invited_by_account_id` are present only when known.
 */
export function toMastodonAdminAccount(v: AdminAccountView, uris: Uris): AdminAccount {
  const a = v.view.account;
  const u = v.user;
  const out: AdminAccount = {
    id: a.id,
    username: a.username,
    domain: a.domain === null ? null : unicodeDomain(a.domain),
    created_at: isoTime(a.created_at),
    email: u?.email ?? null,
    ip: u?.ips[0]?.ip ?? null,
    ips: u ? u.ips.map((i) => ({ ip: i.ip, used_at: isoTime(i.usedAt) })) : [],
    locale: u?.locale ?? null,
    invite_request: u?.inviteRequest ?? null,
    role: u ? toMastodonRole(u.role) : null,
    confirmed: u ? u.confirmed : null,
    approved: u ? u.approved : null,
    disabled: u ? u.disabled : null,
    sensitized: a.sensitized_at !== null,
    silenced: a.silenced_at !== null,
    suspended: a.suspended_at !== null,
    account: toMastodonAccount(v.view, uris),
  };
  if (u?.createdByApplicationId) out.created_by_application_id = u.createdByApplicationId;
  if (u?.invitedByAccountId) out.invited_by_account_id = u.invitedByAccountId;
  return out;
}
