import { findAccountById, findAccountByUri } from '../../db/repos/accounts.js';
import { findAccountIdByHandle, searchAccountIds, searchStatusIds, searchTags } from '../../db/repos/search.js';
import { findStatusById, findStatusByUri } from '../../db/repos/statuses.js';
import { toMastodonAccount, type MastodonAccount } from '../../serializers/account.js';
import type { MastodonStatus } from '../../serializers/status.js';
import { toMastodonTag, type MastodonTag } from '../../serializers/tag.js';
import { normalizeTagName } from '../../util/text/index.js';
import type { Uris } from '../../util/uris.js';
import { loadAccountViews } from '../accounts/views.js';
import type { Deps } from '../deps.js';
import { excluding } from '../relationships/exclusions.js';
import { presentStatuses } from '../statuses/views.js';
import { canViewStatus, statusVisibilitySql } from '../statuses/visibility.js';
import { tagHistories } from '../tags/tags.js';
import { excludeExpression, matchExpression, parseStatusQuery } from './query.js';

/** GET /api/v2/search parameters, validated by the HTTP layer. */
export interface SearchParams {
  q: string;
  /** accounts, hashtags or statuses; null for all (another value selects nothing, as in Mastodon). */
  type: string | null;
  resolve: boolean;
  following: boolean;
  accountId: string | null;
  excludeUnreviewed: boolean;
  maxId: string | undefined;
  minId: string | undefined;
  limit: number;
  offset: number;
}

/** Mastodon's Search entity. */
export interface SearchResults {
  accounts: MastodonAccount[];
  statuses: MastodonStatus[];
  hashtags: MastodonTag[];
}

/**
 * Searches accounts, statuses and hashtags as Mastodon's SearchService does:
 * - a query that is an URL of this instance, with `resolve`, answers with that status or account;
 * - accounts: unless the query is a #hashtag, or an @handle with spaces;
 * - statuses: only for a signed-in viewer and not for a lone #hashtag or @handle; only statuses the
 *   viewer may see and may search (their own, mentioning them, favourited, bookmarked or boosted
 *   by them, or public ones by accounts that chose to be indexable);
 * - hashtags: unless the query contains '@'.
 * `offset` applies only when `type` is given.
 */
export function searchV2(deps: Deps, viewerId: string | null, p: SearchParams): SearchResults {
  const results: SearchResults = { accounts: [], statuses: [], hashtags: [] };
  const query = p.q.trim();
  if (query === '') return results;
  const offset = p.type === null ? 0 : p.offset;
  const want = (type: 'accounts' | 'hashtags' | 'statuses') => p.type === null || p.type === type;

  if (p.resolve && /^https?:\/\//i.test(query)) return resolveLocalUrl(deps, viewerId, query, want);

  if (want('accounts') && !(query.startsWith('#') || (query.includes('@') && query.includes(' ')))) {
    results.accounts = searchAccounts(deps, viewerId, query, p.following, p.limit, offset);
  }
  const loneHandleOrTag = (query.startsWith('#') || query.includes('@')) && !query.includes(' ');
  if (want('statuses') && viewerId !== null && !loneHandleOrTag) {
    results.statuses = searchStatuses(deps, viewerId, query, p, offset);
  }
  if (want('hashtags') && !query.includes('@')) {
    results.hashtags = searchHashtags(deps, viewerId, query, p.excludeUnreviewed, p.limit, offset);
  }
  return results;
}

function presentAccounts(deps: Deps, ids: readonly string[]): MastodonAccount[] {
  const views = loadAccountViews(deps, ids);
  const out: MastodonAccount[] = [];
  for (const id of ids) {
    const view = views.get(id);
    if (view) out.push(toMastodonAccount(view, deps.uris));
  }
  return out;
}

function searchAccounts(deps: Deps, viewerId: string | null, query: string, following: boolean, limit: number, offset: number): MastodonAccount[] {
  // Only a signed-in viewer follows anyone.
  if (following && viewerId === null) return [];
  const handle = query.replace(/^@/, '').toLowerCase();
  const at = handle.indexOf('@');
  let term = handle;
  let domain: string | null = null;
  if (at >= 0) {
    term = handle.slice(0, at);
    domain = handle.slice(at + 1);
    // Our own domain in a handle means a local account.
    if (domain === deps.uris.domain.toLowerCase()) domain = '';
  }
  if (term === '') return [];
  return presentAccounts(deps, searchAccountIds(deps.db, viewerId, { term, domain, following, limit, offset }));
}

function resolveFromHandles(deps: Deps, viewerId: string, handles: readonly string[]): string[] | null {
  const ids: string[] = [];
  for (const h of handles) {
    if (h === 'me') {
      ids.push(viewerId);
      continue;
    }
    const [username = '', rawDomain] = h.split('@');
    const domain = rawDomain === undefined || rawDomain === deps.uris.domain.toLowerCase() ? null : rawDomain;
    const id = findAccountIdByHandle(deps.db, username, domain);
    if (id === null) return null;
    ids.push(id);
  }
  return ids;
}

function searchStatuses(deps: Deps, viewerId: string, query: string, p: SearchParams, offset: number): MastodonStatus[] {
  const parsed = parseStatusQuery(query);
  if (parsed.impossible) return [];
  const from = resolveFromHandles(deps, viewerId, parsed.from);
  if (from === null) return [];
  let accountIds = from;
  if (p.accountId !== null) {
    // account_id and from: together: only statuses that satisfy both.
    if (accountIds.length && !accountIds.includes(p.accountId)) return [];
    accountIds = [p.accountId];
  }
  const match = matchExpression(parsed.terms);
  // Without words, a search needs at least an author to stay a search rather than a timeline.
  if (match === null && accountIds.length === 0) return [];
  const ids = searchStatusIds(deps.db, excluding(statusVisibilitySql, 'timeline'), viewerId, {
    match,
    exclude: excludeExpression(parsed.excluded),
    accountIds: [...new Set(accountIds)],
    scope: parsed.scope,
    mediaTypes: parsed.mediaTypes,
    hasPoll: parsed.hasPoll,
    isReply: parsed.isReply,
    isSensitive: parsed.isSensitive,
    language: parsed.language,
    createdFrom: parsed.createdFrom,
    createdBefore: parsed.createdBefore,
    maxId: p.maxId,
    minId: p.minId,
    limit: p.limit,
    offset,
  });
  return presentStatuses(deps, ids, viewerId);
}

function searchHashtags(deps: Deps, viewerId: string | null, query: string, excludeUnreviewed: boolean, limit: number, offset: number): MastodonTag[] {
  const name = normalizeTagName(query.replace(/^#/, '').trim());
  if (name === '') return [];
  // Nothing is reviewed here: excluding unreviewed tags leaves the exact match only.
  const rows = searchTags(deps.db, name, excludeUnreviewed, limit, offset);
  const history = tagHistories(deps, rows.map((r) => r.id));
  // Followed and featured tags arrive with later issues: a signed-in viewer sees false for both.
  const viewerFields = viewerId === null ? {} : { following: false, featuring: false };
  return rows.map((row) => toMastodonTag(row, deps.uris, { history: history.get(row.id) ?? [], ...viewerFields }));
}

/** The path of a URL when it belongs to this instance. */
function localPath(uris: Uris, url: string): string | null {
  try {
    const u = new URL(url);
    const base = new URL(uris.base);
    if (u.host.toLowerCase() !== base.host.toLowerCase()) return null;
    return decodeURIComponent(u.pathname);
  } catch {
    return null;
  }
}

/** `resolve` with another server's URL: a status or account stored under that ActivityPub id. */
function resolveKnownRemoteUrl(deps: Deps, viewerId: string | null, url: string, want: (t: 'accounts' | 'statuses') => boolean): SearchResults {
  const results: SearchResults = { accounts: [], statuses: [], hashtags: [] };
  const status = want('statuses') ? findStatusByUri(deps.db, url) : undefined;
  if (status && canViewStatus(deps, status, viewerId)) results.statuses = presentStatuses(deps, [status.id], viewerId);
  const account = !status && want('accounts') ? findAccountByUri(deps.db, url) : undefined;
  if (account) results.accounts = presentAccounts(deps, [account.id]);
  return results;
}

/**
 * `resolve` with an URL: the status or account it names on this instance (remote resolution comes
 * with federation). A status the viewer may not see resolves to nothing.
 */
function resolveLocalUrl(deps: Deps, viewerId: string | null, url: string, want: (t: 'accounts' | 'statuses') => boolean): SearchResults {
  const results: SearchResults = { accounts: [], statuses: [], hashtags: [] };
  const path = localPath(deps.uris, url);
  if (path === null) return resolveKnownRemoteUrl(deps, viewerId, url, want);
  const status = /^\/(?:@([^/]+)|users\/([^/]+)\/statuses)\/(\d+)$/.exec(path);
  if (status && want('statuses')) {
    const row = findStatusById(deps.db, status[3] ?? '');
    const author = row ? findAccountById(deps.db, row.account_id) : undefined;
    const username = (status[1] ?? status[2] ?? '').toLowerCase();
    if (row && author && author.domain === null && author.username.toLowerCase() === username && canViewStatus(deps, row, viewerId)) {
      results.statuses = presentStatuses(deps, [row.id], viewerId);
    }
    return results;
  }
  const account = /^\/(?:@|users\/)([^/]+)$/.exec(path);
  if (account && want('accounts')) {
    const id = findAccountIdByHandle(deps.db, account[1] ?? '', null);
    if (id !== null) results.accounts = presentAccounts(deps, [id]);
  }
  return results;
}
