import type { Db } from '../connection.js';
import type { TagRow } from './tags.js';
import type { VisibleSql } from './timelines.js';

/**
 * Search: the full-text index over statuses (`statuses_fts`, contentless, rowid = status id) and
 * the account and hashtag look-ups of GET /api/v2/search.
 */

/** Replaces a status's indexed text. */
export function indexStatusText(db: Db, statusId: string, body: string): void {
  db.query('DELETE FROM statuses_fts WHERE rowid = @id').run({ id: statusId });
  if (body.trim() !== '') db.query('INSERT INTO statuses_fts (rowid, body) VALUES (@id, @body)').run({ id: statusId, body });
}

/** What the index holds of a status: its texts, poll options (JSON) and media descriptions. */
export interface StatusSearchSource {
  local: number;
  text: string;
  content: string;
  spoiler_text: string;
  reblog_of_id: string | null;
  poll_options: string | null;
  media_text: string | null;
}

/** Loads the searchable texts of one status. */
export function findStatusSearchSource(db: Db, statusId: string): StatusSearchSource | undefined {
  return db
    .query<StatusSearchSource>(
      `SELECT s.local, s.text, s.content, s.spoiler_text, s.reblog_of_id,
         (SELECT options FROM polls WHERE status_id = s.id) AS poll_options,
         (SELECT group_concat(description, char(10)) FROM media_attachments WHERE status_id = s.id AND description IS NOT NULL) AS media_text
       FROM statuses s WHERE s.id = @id`,
    )
    .get({ id: statusId });
}

/** Removes a status from the index. */
export function unindexStatus(db: Db, statusId: string): void {
  db.query('DELETE FROM statuses_fts WHERE rowid = @id').run({ id: statusId });
}

/** What a status search looks for; `match`/`exclude` are FTS5 expressions built by core. */
export interface StatusSearch {
  /** Statuses must match this FTS5 expression (null: no text condition). */
  match: string | null;
  /** Statuses must not match this FTS5 expression. */
  exclude: string | null;
  /** Only statuses by this account (account_id, from:). */
  accountIds: readonly string[];
  /** in:library (what the viewer wrote, was mentioned in, favourited, bookmarked, reblogged), in:public, or both. */
  scope: 'all' | 'library' | 'public';
  /** null: no media condition; []: any media; otherwise media of one of these types. */
  mediaTypes: readonly string[] | null;
  hasPoll: boolean;
  isReply: boolean;
  isSensitive: boolean;
  language: string | null;
  /** Creation time bounds in ms (inclusive from, exclusive to). */
  createdFrom: number | null;
  createdBefore: number | null;
  maxId: string | undefined;
  minId: string | undefined;
  limit: number;
  offset: number;
}

/**
 * Statuses matching a search that the viewer may see and may search (Mastodon's rule: their own
 * "library", or public statuses of accounts that chose to be indexable), newest first.
 */
export function searchStatusIds(db: Db, visible: VisibleSql, viewerId: string, q: StatusSearch): string[] {
  const parts: string[] = ['s.reblog_of_id IS NULL', visible('s')];
  if (q.match !== null) parts.push('s.id IN (SELECT rowid FROM statuses_fts WHERE statuses_fts MATCH @match)');
  if (q.exclude !== null) parts.push('s.id NOT IN (SELECT rowid FROM statuses_fts WHERE statuses_fts MATCH @exclude)');
  if (q.accountIds.length) parts.push('s.account_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@account_ids))');
  const library = `(s.account_id = @viewer_id
    OR EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id AND m.account_id = @viewer_id)
    OR EXISTS (SELECT 1 FROM favourites f WHERE f.status_id = s.id AND f.account_id = @viewer_id)
    OR EXISTS (SELECT 1 FROM bookmarks b WHERE b.status_id = s.id AND b.account_id = @viewer_id)
    OR EXISTS (SELECT 1 FROM statuses r WHERE r.reblog_of_id = s.id AND r.account_id = @viewer_id AND r.reblog_of_id IS NOT NULL))`;
  const open = `(s.visibility = 'public' AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = s.account_id AND a.indexable = 1))`;
  parts.push(q.scope === 'library' ? library : q.scope === 'public' ? open : `(${library} OR ${open})`);
  if (q.mediaTypes !== null) {
    parts.push(
      q.mediaTypes.length === 0
        ? 'EXISTS (SELECT 1 FROM media_attachments ma WHERE ma.status_id = s.id)'
        : 'EXISTS (SELECT 1 FROM media_attachments ma WHERE ma.status_id = s.id AND ma.type IN (SELECT value FROM json_each(@media_types)))',
    );
  }
  if (q.hasPoll) parts.push('EXISTS (SELECT 1 FROM polls p WHERE p.status_id = s.id)');
  if (q.isReply) parts.push('(s.in_reply_to_id IS NOT NULL OR s.in_reply_to_uri IS NOT NULL)');
  if (q.isSensitive) parts.push('s.sensitive = 1');
  if (q.language !== null) parts.push('s.language = @language');
  if (q.createdFrom !== null) parts.push('s.created_at >= @created_from');
  if (q.createdBefore !== null) parts.push('s.created_at < @created_before');
  if (q.maxId) parts.push('s.id < @max_id');
  if (q.minId) parts.push('s.id > @min_id');
  return db
    .query<{ id: string }>(`SELECT s.id FROM statuses s WHERE ${parts.join(' AND ')} ORDER BY s.id DESC LIMIT @limit OFFSET @offset`)
    .all({
      viewer_id: viewerId,
      match: q.match,
      exclude: q.exclude,
      account_ids: JSON.stringify(q.accountIds),
      language: q.language,
      media_types: JSON.stringify(q.mediaTypes ?? []),
      created_from: q.createdFrom,
      created_before: q.createdBefore,
      max_id: q.maxId,
      min_id: q.minId,
      limit: q.limit,
      offset: q.offset,
    })
    .map((r) => r.id);
}

/** An account search: a username (and optional domain) or display-name prefix. */
export interface AccountSearch {
  /** Lower-case text to match at the start of the username or of a display-name word. */
  term: string;
  /** Lower-case domain prefix when the query was `user@domain`; '' for an explicitly local handle. */
  domain: string | null;
  /** Only accounts the viewer follows. */
  following: boolean;
  limit: number;
  offset: number;
}

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Accounts matching a search, exact handle first, then accounts the viewer follows, then by
 * followers. Suspended, moved and unapproved accounts are left out (Mastodon's searchable scope).
 */
export function searchAccountIds(db: Db, viewerId: string | null, q: AccountSearch): string[] {
  const parts = [
    'a.suspended_at IS NULL',
    'a.moved_to_account_id IS NULL',
    'NOT EXISTS (SELECT 1 FROM users u WHERE u.account_id = a.id AND u.approved = 0)',
  ];
  if (q.domain === null) {
    parts.push(`(lower(a.username) LIKE @prefix ESCAPE '\\' OR lower(a.display_name) LIKE @prefix ESCAPE '\\' OR lower(a.display_name) LIKE @word ESCAPE '\\')`);
  } else {
    parts.push(`lower(a.username) LIKE @prefix ESCAPE '\\'`);
    parts.push(q.domain === '' ? 'a.domain IS NULL' : `lower(coalesce(a.domain, '')) LIKE @domain_prefix ESCAPE '\\'`);
  }
  if (q.following) parts.push('EXISTS (SELECT 1 FROM follows f WHERE f.account_id = @viewer_id AND f.target_account_id = a.id)');
  return db
    .query<{ id: string }>(
      `SELECT a.id FROM accounts a WHERE ${parts.join(' AND ')}
       ORDER BY (lower(a.username) = @term AND (@domain IS NULL OR lower(coalesce(a.domain, '')) = @domain)) DESC,
         EXISTS (SELECT 1 FROM follows f WHERE f.account_id = @viewer_id AND f.target_account_id = a.id) DESC,
         (a.domain IS NULL) DESC, a.followers_count DESC, a.id
       LIMIT @limit OFFSET @offset`,
    )
    .all({
      viewer_id: viewerId,
      term: q.term,
      domain: q.domain,
      prefix: `${likeEscape(q.term)}%`,
      word: `% ${likeEscape(q.term)}%`,
      domain_prefix: `${likeEscape(q.domain ?? '')}%`,
      limit: q.limit,
      offset: q.offset,
    })
    .map((r) => r.id);
}

/**
 * Listable hashtags whose normalized name starts with `prefix`, shortest first then by name, as
 * Mastodon orders them; with `exactOnly`, only the exact name (unreviewed tags left out).
 */
export function searchTags(db: Db, prefix: string, exactOnly: boolean, limit: number, offset: number): TagRow[] {
  // GLOB is case-sensitive, so it can use the unique index on name_normalized (already lower case).
  const glob = `${prefix.replace(/[*?[\]]/g, (c) => `[${c}]`)}*`;
  return db
    .query<TagRow>(
      `SELECT * FROM tags WHERE listable = 1
       AND ${exactOnly ? 'name_normalized = @prefix' : 'name_normalized GLOB @glob'}
       ORDER BY length(name_normalized), name_normalized LIMIT @limit OFFSET @offset`,
    )
    .all({ prefix, glob, limit, offset });
}

/**
 * Daily uses of tags since `sinceId` (a status id bound), keyed by tag id then by day number. Only
 * public statuses (not boosts) of accounts neither suspended nor silenced count, as Mastodon
 * records a tag's history: a private or direct post must not reveal that it used a tag.
 */
export function tagDailyUses(db: Db, tagIds: readonly string[], sinceId: string): Map<string, Map<number, { uses: number; accounts: number }>> {
  const out = new Map<string, Map<number, { uses: number; accounts: number }>>();
  if (tagIds.length === 0) return out;
  const rows = db
    .query<{ tag_id: string; day: number; uses: number; accounts: number }>(
      `SELECT st.tag_id, s.created_at / 86400000 AS day, count(*) AS uses, count(DISTINCT s.account_id) AS accounts
       FROM statuses_tags st JOIN statuses s ON s.id = st.status_id JOIN accounts a ON a.id = s.account_id
       WHERE st.tag_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@tag_ids)) AND st.status_id >= @since_id
         AND s.visibility = 'public' AND s.reblog_of_id IS NULL AND a.suspended_at IS NULL AND a.silenced_at IS NULL
       GROUP BY st.tag_id, day`,
    )
    .all({ tag_ids: JSON.stringify(tagIds), since_id: sinceId });
  for (const r of rows) {
    let days = out.get(r.tag_id);
    if (!days) out.set(r.tag_id, (days = new Map()));
    days.set(r.day, { uses: r.uses, accounts: r.accounts });
  }
  return out;
}

/** Account ids for handles (`username`, domain or null for local), case-insensitive. */
export function findAccountIdByHandle(db: Db, username: string, domain: string | null): string | null {
  const row = db
    .query<{ id: string }>("SELECT id FROM accounts WHERE lower(username) = lower(@username) AND coalesce(domain, '') = lower(coalesce(@domain, ''))")
    .get({ username, domain });
  return row?.id ?? null;
}
