import { findAccountByHandle, type AccountRow } from '../../db/repos/accounts.js';
import { upsertMention, silenceMentions, findMentionsByStatusIds } from '../../db/repos/mentions.js';
import { findTagByNormalizedName, insertTag, setStatusTags, touchTag } from '../../db/repos/tags.js';
import { newId } from '../../util/ids.js';
import { extractEntities, formatStatusHtml, normalizeTagName, type FormatLinks } from '../../util/text/index.js';
import type { Deps } from '../deps.js';

/** A status text, rendered, with the accounts it mentions and the hashtags it uses. */
export interface ProcessedText {
  html: string;
  /** Accounts mentioned in the text that we know, in order of appearance, without repeats. */
  mentioned: AccountRow[];
  /** Hashtags as written (first spelling of each), in order of appearance. */
  tagNames: string[];
}

/** True when `domain` names this instance (a local handle written in full). */
function isLocalDomain(deps: Deps, domain: string): boolean {
  const own = deps.uris.domain.toLowerCase();
  if (domain === own) return true;
  const origin = deps.config.origin;
  return origin !== null && new URL(origin).host.toLowerCase() === domain;
}

/**
 * Resolves a mention to a known account: `@user` and `@user@<our domain>` are local accounts;
 * `@user@domain` must be an account we already know (federation resolves unknown ones later).
 * Suspended accounts are not mentioned.
 */
export function resolveMention(deps: Deps, username: string, domain: string | null): AccountRow | null {
  const local = domain === null || isLocalDomain(deps, domain);
  const account = findAccountByHandle(deps.db, username, local ? null : domain);
  if (!account || account.suspended_at !== null) return null;
  return account;
}

/**
 * How a local text (status or bio) links mentions and hashtags: mentions of known accounts go to
 * their profile page (found by `lookup`, by default `resolveMention`), hashtags to the tag page.
 */
export function textLinks(
  deps: Deps,
  lookup: (username: string, domain: string | null) => AccountRow | null = (username, domain) => resolveMention(deps, username, domain),
): FormatLinks {
  return {
    mention: (username, domain) => {
      const account = lookup(username, domain);
      if (!account) return null;
      const url = account.domain === null ? deps.uris.accountUrl(account.username) : (account.url ?? account.uri ?? deps.uris.accountUrl(account.username));
      return { url, username: account.username };
    },
    tag: (name) => deps.uris.tagUrl(name),
  };
}

/** Reads a status text: its HTML, the known accounts it mentions and its hashtags. Writes nothing. */
export function processStatusText(deps: Deps, text: string): ProcessedText {
  const entities = extractEntities(text);
  const byHandle = new Map<string, AccountRow | null>();
  const mentioned = new Map<string, AccountRow>();
  const tags = new Map<string, string>();
  const lookup = (username: string, domain: string | null) => {
    const key = `${username.toLowerCase()}@${domain ?? ''}`;
    if (!byHandle.has(key)) byHandle.set(key, resolveMention(deps, username, domain));
    return byHandle.get(key) ?? null;
  };
  for (const e of entities) {
    if (e.kind === 'mention') {
      const account = lookup(e.username, e.domain);
      if (account && !mentioned.has(account.id)) mentioned.set(account.id, account);
    } else if (e.kind === 'hashtag') {
      const key = normalizeTagName(e.name);
      if (!tags.has(key)) tags.set(key, e.name);
    }
  }
  const html = formatStatusHtml(text, textLinks(deps, lookup), entities);
  return { html, mentioned: [...mentioned.values()], tagNames: [...tags.values()] };
}

/**
 * The local followers of the Group accounts among `mentioned`: mentioning a group addresses its
 * members, who are added as silent mentions (they can see the status and are not named in it).
 */
export function groupAudience(deps: Deps, mentioned: readonly AccountRow[], authorId: string): string[] {
  const groups = mentioned.filter((a) => a.actor_type === 'Group').map((a) => a.id);
  if (groups.length === 0) return [];
  const rows = deps.db
    .query<{ account_id: string }>(
      'SELECT DISTINCT account_id FROM follows WHERE target_account_id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))',
    )
    .all(JSON.stringify(groups));
  const named = new Set(mentioned.map((a) => a.id));
  return rows.map((r) => r.account_id).filter((id) => id !== authorId && !named.has(id));
}

/**
 * Writes the mentions of a status (inside the caller's transaction): written mentions, then
 * silent ones. Mentions an edit removed from the text become silent rather than disappear, as
 * Mastodon does, so that nobody who was addressed loses access.
 */
export function saveMentions(deps: Deps, statusId: string, mentioned: readonly AccountRow[], silentIds: readonly string[]): void {
  const db = deps.db;
  const keep = new Set(mentioned.map((a) => a.id));
  const previous = findMentionsByStatusIds(db, [statusId]).filter((m) => !m.silent && !keep.has(m.account_id));
  silenceMentions(db, statusId, previous.map((m) => m.account_id));
  for (const account of mentioned) upsertMention(db, { id: newId(), status_id: statusId, account_id: account.id, silent: 0 });
  for (const id of silentIds) if (!keep.has(id)) upsertMention(db, { id: newId(), status_id: statusId, account_id: id, silent: 1 });
}

/** Creates or reuses the tags (by normalized name) and links them to the status (inside the caller's transaction). */
export function saveTags(deps: Deps, statusId: string, names: readonly string[], at: number): void {
  const ids: string[] = [];
  for (const name of names) {
    const normalized = normalizeTagName(name);
    let tag = findTagByNormalizedName(deps.db, normalized);
    if (!tag) {
      tag = { id: newId(at), name, name_normalized: normalized, usable: 1, listable: 1, last_status_at: at, created_at: at };
      insertTag(deps.db, tag);
    } else {
      touchTag(deps.db, tag.id, at);
    }
    ids.push(tag.id);
  }
  setStatusTags(deps.db, statusId, ids);
}
