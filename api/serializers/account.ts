import { domainToUnicode } from 'node:url';
import type { DefaultPrivacy, QuotePolicy } from '../core/accounts/settings.js';
import { parseProfileFields, parseStringList, type AccountRow, type CustomEmojiRow, type StoredProfileField } from '../db/repos/accounts.js';
import type { UserRole } from '../db/repos/users.js';
import { isoDate, isoTime } from '../util/clock.js';
import type { RoleDefinition } from '../util/permissions.js';
import type { Uris } from '../util/uris.js';
import { toMastodonCustomEmoji, type CustomEmoji } from './custom-emoji.js';
import { toMastodonAccountRoles, toMastodonRole, type AccountRole, type Role } from './role.js';

/** Where the instance serves the picture shown for accounts without an avatar. */
export const MISSING_AVATAR_PATH = '/avatars/original/missing.png';
/** Where the instance serves the picture shown for accounts without a header. */
export const MISSING_HEADER_PATH = '/headers/original/missing.png';

/** A profile field as Mastodon's API shows it. */
export interface Field {
  name: string;
  /** HTML on Account, raw text in CredentialAccount `source.fields`. */
  value: string;
  verified_at: string | null;
}

/** Mastodon's Account entity, with every documented attribute. */
export interface Account {
  id: string;
  username: string;
  /** `username` for local accounts, `username@domain` (domain in Unicode) for remote ones. */
  acct: string;
  display_name: string;
  locked: boolean;
  bot: boolean;
  discoverable: boolean | null;
  indexable: boolean;
  group: boolean;
  /** Midnight UTC of the day the account was created, as Mastodon returns it. */
  created_at: string;
  note: string;
  url: string | null;
  uri: string;
  avatar: string;
  avatar_static: string;
  avatar_description: string;
  header: string;
  header_static: string;
  header_description: string;
  followers_count: number;
  following_count: number;
  statuses_count: number;
  /** YYYY-MM-DD, or null without statuses. */
  last_status_at: string | null;
  hide_collections: boolean | null;
  show_media: boolean;
  show_media_replies: boolean;
  show_featured: boolean;
  emojis: CustomEmoji[];
  fields: Field[];
  roles: AccountRole[];
  /** Local accounts only: whether search engines should leave the profile out. */
  noindex?: boolean;
  /** Present when the account has moved. */
  moved?: Account | null;
  /** Present (true) only for memorialized accounts. */
  memorial?: true;
  /** Present (true) only for suspended accounts, which are shown with empty data. */
  suspended?: true;
  /** Present (true) only for silenced accounts. */
  limited?: true;
}

/** Another name for `Account`, matching the `Mastodon…` names of other entities. */
export type MastodonAccount = Account;

/** CredentialAccount `source`: raw values for editing, and posting defaults. */
export interface AccountSource {
  privacy: DefaultPrivacy;
  sensitive: boolean;
  language: string | null;
  quote_policy: QuotePolicy;
  note: string;
  fields: Field[];
  follow_requests_count: number;
  hide_collections: boolean;
  discoverable: boolean | null;
  indexable: boolean;
  attribution_domains: string[];
}

/** Mastodon's CredentialAccount: the signed-in user's own account. */
export interface CredentialAccount extends Account {
  source: AccountSource;
  role: Role;
}

/** Another name for `CredentialAccount`. */
export type MastodonCredentialAccount = CredentialAccount;

/** The owner of a local account, as far as the Account entity needs it. */
export interface AccountViewUser {
  id: string;
  role: UserRole;
  /** The user's custom role, which replaces `role` when set (core loads it). */
  customRole?: RoleDefinition | null | undefined;
  approved: boolean;
  disabled: boolean;
  /** The user's explicit indexing choice, or null when never made. */
  noindex: boolean | null;
}

/**
 * An account loaded with everything its entity needs (see core/accounts/views.ts): its user for
 * local accounts, the custom emojis its profile uses, and the account it moved to (loaded two
 * levels deep).
 */
export interface AccountView {
  account: AccountRow;
  user: AccountViewUser | null;
  emojis: CustomEmojiRow[];
  moved: AccountView | null;
}

/** What CredentialAccount adds, loaded by core (settings and counts of the signed-in user). */
export interface CredentialExtras {
  privacy: DefaultPrivacy;
  sensitive: boolean;
  language: string | null;
  quotePolicy: QuotePolicy;
  followRequestsCount: number;
}

/** `host` or `host:port` in Unicode form (stored domains may arrive as punycode). */
export function unicodeDomain(domain: string): string {
  const match = /^(.*?)(:\d+)?$/.exec(domain);
  const host = match?.[1] ?? domain;
  const port = match?.[2] ?? '';
  return (domainToUnicode(host) || host) + port;
}

/** The handle clients show: `username` for local accounts, `username@domain` for remote ones. */
export function accountAcct(account: Pick<AccountRow, 'username' | 'domain'>): string {
  return account.domain === null ? account.username : `${account.username}@${unicodeDomain(account.domain)}`;
}

function storedTime(value: number | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const ms = typeof value === 'number' ? value : Date.parse(value);
  return Number.isFinite(ms) ? isoTime(ms) : null;
}

function fieldHtml(field: StoredProfileField): Field {
  return { name: field.name, value: field.value, verified_at: storedTime(field.verified_at) };
}

function fieldSource(field: StoredProfileField): Field {
  return { name: field.name, value: field.value_source ?? field.value, verified_at: storedTime(field.verified_at) };
}

/**
 * An avatar's or header's URLs: the stored file (an upload, or a remote picture copied here), else
 * the remote picture (through the media proxy when the instance proxies remote media), else the
 * default picture.
 */
function imageUrls(uris: Uris, a: AccountRow, kind: 'avatar' | 'header', missingPath: string): [string, string] {
  const [file, staticFile, remote] = kind === 'avatar' ? [a.avatar_file, a.avatar_static_file, a.avatar_remote_url] : [a.header_file, a.header_static_file, a.header_remote_url];
  const remoteUrl = remote && uris.remoteMedia === 'proxy' ? uris.accountImageProxyUrl(a.id, kind) : remote;
  const original = file ? uris.fileUrl(file) : (remoteUrl ?? uris.url(missingPath));
  return [original, staticFile ? uris.fileUrl(staticFile) : original];
}

/**
 * Whether search engines should leave a local profile out. An explicit choice of the user wins;
 * otherwise indexing needs consent to both discovery and indexing (the single "make my profile
 * discoverable" opt-in sets both), so a person who never opted in is not indexed.
 */
function noindexOf(view: AccountView): boolean {
  const explicit = view.user?.noindex;
  if (explicit !== null && explicit !== undefined) return explicit;
  return !(view.account.discoverable === 1 && view.account.indexable === 1);
}

function serialize(view: AccountView, uris: Uris, depth: number): Account {
  const a = view.account;
  const local = a.domain === null;
  const suspended = a.suspended_at !== null;
  const [avatar, avatarStatic] = suspended
    ? [uris.url(MISSING_AVATAR_PATH), uris.url(MISSING_AVATAR_PATH)]
    : imageUrls(uris, a, 'avatar', MISSING_AVATAR_PATH);
  const [header, headerStatic] = suspended
    ? [uris.url(MISSING_HEADER_PATH), uris.url(MISSING_HEADER_PATH)]
    : imageUrls(uris, a, 'header', MISSING_HEADER_PATH);
  const uri = local ? uris.accountUri(a.username) : (a.uri ?? '');
  const out: Account = {
    id: a.id,
    username: a.username,
    acct: accountAcct(a),
    // A suspended account keeps only its identity: everything it published is withheld.
    display_name: suspended ? '' : a.display_name,
    locked: suspended ? false : a.locked === 1,
    bot: suspended ? false : a.actor_type === 'Service' || a.actor_type === 'Application',
    discoverable: suspended ? false : a.discoverable === null ? null : a.discoverable === 1,
    indexable: suspended ? false : a.indexable === 1,
    group: a.actor_type === 'Group',
    created_at: `${isoDate(a.created_at)}T00:00:00.000Z`,
    note: suspended ? '' : a.note,
    url: local ? uris.accountUrl(a.username) : (a.url ?? a.uri),
    uri,
    avatar,
    avatar_static: avatarStatic,
    avatar_description: suspended ? '' : a.avatar_description,
    header,
    header_static: headerStatic,
    header_description: suspended ? '' : a.header_description,
    followers_count: suspended ? 0 : a.followers_count,
    following_count: suspended ? 0 : a.following_count,
    statuses_count: suspended ? 0 : a.statuses_count,
    last_status_at: suspended || a.last_status_at === null ? null : isoDate(a.last_status_at),
    hide_collections: a.hide_collections === 1,
    show_media: a.show_media === 1,
    show_media_replies: a.show_media_replies === 1,
    show_featured: a.show_featured === 1,
    emojis: suspended ? [] : view.emojis.map((e) => toMastodonCustomEmoji(e, uris)).filter((e): e is CustomEmoji => e !== null),
    fields: suspended ? [] : parseProfileFields(a.fields).map(fieldHtml),
    roles: suspended || !local ? [] : toMastodonAccountRoles(view.user ? (view.user.customRole ?? view.user.role) : null),
  };
  if (local) out.noindex = noindexOf(view);
  // The moved-to account is shown with its own move, one level deeper, and cut there.
  if (!suspended && a.moved_to_account_id !== null && view.moved && depth < 2) out.moved = serialize(view.moved, uris, depth + 1);
  if (a.memorial === 1) out.memorial = true;
  if (suspended) out.suspended = true;
  if (a.silenced_at !== null) out.limited = true;
  return out;
}

/** The Account entity of a loaded account view. */
export function toMastodonAccount(view: AccountView, uris: Uris): Account {
  return serialize(view, uris, 0);
}

/**
 * The CredentialAccount of the signed-in user: the Account plus `source` (raw bio and fields,
 * posting defaults, pending follow requests) and the user's complete `role`.
 */
export function toMastodonCredentialAccount(view: AccountView, user: { role: UserRole }, extras: CredentialExtras, uris: Uris): CredentialAccount {
  const a = view.account;
  return {
    ...toMastodonAccount(view, uris),
    source: {
      privacy: extras.privacy,
      sensitive: extras.sensitive,
      language: extras.language,
      quote_policy: extras.quotePolicy,
      note: a.note_source,
      fields: parseProfileFields(a.fields).map(fieldSource),
      follow_requests_count: extras.followRequestsCount,
      hide_collections: a.hide_collections === 1,
      discoverable: a.discoverable === null ? null : a.discoverable === 1,
      indexable: a.indexable === 1,
      attribution_domains: parseStringList(a.attribution_domains),
    },
    role: toMastodonRole(view.user?.customRole ?? user.role),
  };
}
