import { findAccountsByIds, findCustomEmojisByShortcodes, parseProfileFields, type AccountRow, type CustomEmojiRow } from '../../db/repos/accounts.js';
import { findUsersByAccountIds } from '../../db/repos/users.js';
import { rolesOf } from '../roles/access.js';
import { toMastodonAccount, type Account, type AccountView, type AccountViewUser } from '../../serializers/account.js';
import type { Deps } from '../deps.js';
import { getUserSettings } from './settings.js';

export type { AccountView } from '../../serializers/account.js';

/** How far the moved-to chain is followed: the moved account and its own move, then cut. */
const MOVED_DEPTH = 2;

// `:shortcode:` as Mastodon recognises custom emojis: two or more word characters between colons,
// not glued to other letters or colons.
const EMOJI_SHORTCODE = /(?<![\p{L}\p{N}:]):([a-zA-Z0-9_]{2,}):(?![\p{L}\p{N}:])/gu;

/** The custom emoji shortcodes a profile uses (display name, bio and fields). */
function profileShortcodes(account: AccountRow): Set<string> {
  const texts = [account.display_name, account.note];
  for (const field of parseProfileFields(account.fields)) texts.push(field.name, field.value);
  const found = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(EMOJI_SHORTCODE)) if (match[1]) found.add(match[1]);
  return found;
}

/**
 * Loads accounts by id with everything the Account entity needs, in a fixed number of queries
 * whatever the number of accounts: the rows, then the accounts they moved to (two levels), their
 * users, and the custom emojis their profiles use. Unknown ids are left out of the map.
 */
export function loadAccountViews(deps: Deps, ids: readonly string[]): Map<string, AccountView> {
  const rows = findAccountsByIds(deps.db, ids);
  // Follow the moved-to chain level by level, loading only what is not loaded yet.
  let frontier = [...rows.values()];
  for (let level = 0; level < MOVED_DEPTH && frontier.length > 0; level++) {
    const next = frontier.map((r) => r.moved_to_account_id).filter((id): id is string => id !== null && !rows.has(id));
    if (next.length === 0) break;
    const loaded = findAccountsByIds(deps.db, next);
    for (const [id, row] of loaded) rows.set(id, row);
    frontier = [...loaded.values()];
  }

  const localIds = [...rows.values()].filter((r) => r.domain === null).map((r) => r.id);
  const users = findUsersByAccountIds(deps.db, localIds);
  // Custom roles replace the built-in one on the badge (one query for all of them).
  const withCustomRole = [...users.values()].filter((u) => u.role_id !== null);
  const customRoles = new Map(rolesOf(deps, withCustomRole).map((role, i) => [withCustomRole[i]?.account_id, role]));

  const shortcodes = new Map<string, Set<string>>();
  const pairs: [string, string | null][] = [];
  const seen = new Set<string>();
  for (const row of rows.values()) {
    const codes = profileShortcodes(row);
    shortcodes.set(row.id, codes);
    for (const code of codes) {
      const key = `${code}\u0000${row.domain ?? ''}`;
      if (!seen.has(key)) {
        seen.add(key);
        pairs.push([code, row.domain]);
      }
    }
  }
  const emojiByKey = new Map<string, CustomEmojiRow>();
  for (const emoji of findCustomEmojisByShortcodes(deps.db, pairs)) emojiByKey.set(`${emoji.shortcode}\u0000${emoji.domain ?? ''}`, emoji);

  const views = new Map<string, AccountView>();
  for (const row of rows.values()) {
    const user = users.get(row.id);
    const viewUser: AccountViewUser | null = user
      ? {
          id: user.id,
          role: user.role,
          customRole: customRoles.get(user.account_id) ?? null,
          approved: user.approved === 1,
          disabled: user.disabled === 1,
          noindex: getUserSettings(user).noindex,
        }
      : null;
    const emojis = [...(shortcodes.get(row.id) ?? [])]
      .map((code) => emojiByKey.get(`${code}\u0000${row.domain ?? ''}`))
      .filter((e): e is CustomEmojiRow => e !== undefined);
    views.set(row.id, { account: row, user: viewUser, emojis, moved: null });
  }
  for (const view of views.values()) {
    const target = view.account.moved_to_account_id;
    if (target !== null) view.moved = views.get(target) ?? null;
  }

  // Only what was asked for is returned; the moved-to accounts hang off their views.
  const out = new Map<string, AccountView>();
  for (const id of ids) {
    const view = views.get(id);
    if (view) out.set(id, view);
  }
  return out;
}

/** Loads one account view, or null when the id is unknown. */
export function loadAccountView(deps: Deps, id: string): AccountView | null {
  return loadAccountViews(deps, [id]).get(id) ?? null;
}

/**
 * Account entities for the given ids, in that order, skipping unknown ids. What other areas call
 * to answer with a list of accounts.
 */
export function presentAccounts(deps: Deps, ids: readonly string[]): Account[] {
  const views = loadAccountViews(deps, ids);
  const out: Account[] = [];
  for (const id of ids) {
    const view = views.get(id);
    if (view) out.push(toMastodonAccount(view, deps.uris));
  }
  return out;
}
