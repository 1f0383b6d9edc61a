import type { Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';

/**
 * Timeline queries that read statuses directly (public, tag, account, favourites, bookmarks).
 * Each takes `visible`, a visibility condition over a status alias built by core (the one rule set
 * in core/statuses/visibility.ts), and binds `@viewer_id` for it. They return ids (and cursors);
 * the statuses themselves are loaded in one batch afterwards.
 */

/** Builds the visibility condition for a status alias (core's `statusVisibilitySql`). */
export type VisibleSql = (alias: string) => string;

/** Local/remote/media filters shared by the public and tag timelines. */
export interface PublicFilters {
  local: boolean;
  remote: boolean;
  onlyMedia: boolean;
}

// A reply to someone else (a thread of one's own is not "a reply" for these filters, as Mastodon's
// `without_replies` scope has it). A reply whose parent is unknown still counts as a reply.
const NOT_A_REPLY = `((s.in_reply_to_id IS NULL AND s.in_reply_to_uri IS NULL) OR s.in_reply_to_account_id = s.account_id)`;
const HAS_MEDIA = 'EXISTS (SELECT 1 FROM media_attachments m WHERE m.status_id = s.id)';
// Public timelines leave out suspended and silenced accounts (Mastodon's public scope).
const LISTED_AUTHOR = 'EXISTS (SELECT 1 FROM accounts a WHERE a.id = s.account_id AND a.suspended_at IS NULL AND a.silenced_at IS NULL)';

function publicFilterSql(f: PublicFilters): string {
  const parts: string[] = [];
  if (f.local) parts.push('s.local = 1');
  if (f.remote) parts.push('s.local = 0');
  if (f.onlyMedia) parts.push(HAS_MEDIA);
  return parts.map((p) => `AND ${p}`).join(' ');
}

/**
 * The public timeline: public, original (not reblogs), not replies to others, newest first.
 * Unlisted statuses never appear here.
 */
export function publicTimelineIds(db: Db, visible: VisibleSql, viewerId: string | null, filters: PublicFilters, page: PageBounds): string[] {
  const p = pageSql('s.id', page);
  const ids = db
    .query<{ id: string }>(
      `SELECT s.id FROM statuses s
       WHERE s.visibility = 'public' AND s.reblog_of_id IS NULL AND ${NOT_A_REPLY}
       ${publicFilterSql(filters)} AND ${LISTED_AUTHOR} AND ${visible('s')} ${p.where} ${p.orderLimit}`,
    )
    .all({ viewer_id: viewerId, ...p.params })
    .map((r) => r.id);
  return p.reverse ? ids.reverse() : ids;
}

/** Tag sets of a tag timeline query, as tag ids. */
export interface TagSets {
  /** The hashtag of the path plus `any[]`: a status needs one of them. */
  any: readonly string[];
  /** `all[]`: a status needs every one. */
  all: readonly string[];
  /** `none[]`: a status may have none of them. */
  none: readonly string[];
}

/** The tag timeline: public statuses with the tags asked for (replies included), newest first. */
export function tagTimelineIds(db: Db, visible: VisibleSql, viewerId: string | null, tags: TagSets, filters: PublicFilters, page: PageBounds): string[] {
  const p = pageSql('st.status_id', page);
  const all = tags.all.length
    ? `AND (SELECT count(*) FROM statuses_tags x WHERE x.status_id = s.id AND x.tag_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@all_tags))) = @all_count`
    : '';
  const none = tags.none.length
    ? `AND NOT EXISTS (SELECT 1 FROM statuses_tags x WHERE x.status_id = s.id AND x.tag_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@none_tags)))`
    : '';
  // One tag (the usual case) walks the (tag_id, status_id) key in order; several need DISTINCT.
  const source =
    tags.any.length === 1
      ? 'statuses_tags st JOIN statuses s ON s.id = st.status_id WHERE st.tag_id = @tag_id'
      : 'statuses_tags st JOIN statuses s ON s.id = st.status_id WHERE st.tag_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@any_tags))';
  const ids = db
    .query<{ id: string }>(
      `SELECT DISTINCT st.status_id AS id FROM ${source}
       AND s.visibility = 'public' AND s.reblog_of_id IS NULL ${all} ${none}
       ${publicFilterSql(filters)} AND ${LISTED_AUTHOR} AND ${visible('s')} ${p.where} ${p.orderLimit}`,
    )
    .all({
      viewer_id: viewerId,
      tag_id: tags.any[0] ?? null,
      any_tags: JSON.stringify(tags.any),
      all_tags: JSON.stringify(tags.all),
      all_count: tags.all.length,
      none_tags: JSON.stringify(tags.none),
      ...p.params,
    })
    .map((r) => r.id);
  return p.reverse ? ids.reverse() : ids;
}

/** Filters of the account statuses timeline. */
export interface AccountStatusFilters {
  pinned: boolean;
  onlyMedia: boolean;
  excludeReplies: boolean;
  excludeReblogs: boolean;
  /** A normalized tag name, or null. */
  tagged: string | null;
}

/**
 * An account's statuses and reblogs that the viewer may see (a reblog also needs its reblogged
 * status to be visible), newest first, with Mastodon's filters.
 */
export function accountStatusIds(db: Db, visible: VisibleSql, viewerId: string | null, accountId: string, f: AccountStatusFilters, page: PageBounds): string[] {
  const p = pageSql('s.id', page);
  const parts: string[] = [];
  if (f.pinned) parts.push('EXISTS (SELECT 1 FROM status_pins sp WHERE sp.status_id = s.id AND sp.account_id = @account_id)');
  if (f.onlyMedia) parts.push(HAS_MEDIA);
  if (f.excludeReplies) parts.push(NOT_A_REPLY);
  if (f.excludeReblogs) parts.push('s.reblog_of_id IS NULL');
  if (f.tagged !== null) {
    parts.push('EXISTS (SELECT 1 FROM statuses_tags st JOIN tags t ON t.id = st.tag_id WHERE st.status_id = s.id AND t.name_normalized = @tagged)');
  }
  const ids = db
    .query<{ id: string }>(
      `SELECT s.id FROM statuses s
       WHERE s.account_id = @account_id AND ${visible('s')}
       AND (s.reblog_of_id IS NULL OR EXISTS (SELECT 1 FROM statuses r WHERE r.id = s.reblog_of_id AND ${visible('r')}))
       ${parts.map((x) => `AND ${x}`).join(' ')} ${p.where} ${p.orderLimit}`,
    )
    .all({ viewer_id: viewerId, account_id: accountId, tagged: f.tagged, ...p.params })
    .map((r) => r.id);
  return p.reverse ? ids.reverse() : ids;
}

/** A status id with the id of the row that put it in a list (a favourite, a bookmark). */
export interface CursorRow {
  cursor_id: string;
  status_id: string;
}

/** The viewer's favourites or bookmarks that they may still see, newest row first, paged by row id. */
export function markedStatusIds(db: Db, table: 'favourites' | 'bookmarks', visible: VisibleSql, viewerId: string, page: PageBounds): CursorRow[] {
  const p = pageSql('x.id', page);
  const rows = db
    .query<CursorRow>(
      `SELECT x.id AS cursor_id, x.status_id FROM ${table} x JOIN statuses s ON s.id = x.status_id
       WHERE x.account_id = @viewer_id AND ${visible('s')} ${p.where} ${p.orderLimit}`,
    )
    .all({ viewer_id: viewerId, ...p.params });
  return p.reverse ? rows.reverse() : rows;
}

/** Tag rows by normalized name, for the names that exist. */
export function findTagsByNormalizedNames(db: Db, names: readonly string[]): Map<string, { id: string; name: string; name_normalized: string }> {
  const out = new Map<string, { id: string; name: string; name_normalized: string }>();
  if (names.length === 0) return out;
  const rows = db
    .query<{ id: string; name: string; name_normalized: string }>(
      'SELECT id, name, name_normalized FROM tags WHERE name_normalized IN (SELECT value FROM json_each(?))',
    )
    .all(JSON.stringify(names));
  for (const r of rows) out.set(r.name_normalized, r);
  return out;
}

/**
 * What changes too often to cache, for a status `s` (and, for a reblog, its reblogged status):
 * the counters of both and, for a viewer, whether they favourited (f), reblogged (r), bookmarked
 * (b) or pinned (p) the status shown (the reblogged one for a reblog), or muted its thread (m);
 * 0/1, all 0 without a viewer.
 */
export interface LiveStatusRow {
  id: string;
  replies_count: number;
  reblogs_count: number;
  favourites_count: number;
  inner_id: string | null;
  inner_replies_count: number | null;
  inner_reblogs_count: number | null;
  inner_favourites_count: number | null;
  f: number;
  r: number;
  b: number;
  p: number;
  m: number;
}

/**
 * The columns of `LiveStatusRow` over `s` joined with its reblogged status `o` (LEFT JOIN);
 * `withViewer` false gives all-zero flags without touching the viewer's tables.
 */
export function liveColumnsSql(withViewer: boolean): string {
  const counters = `s.id, s.replies_count, s.reblogs_count, s.favourites_count,
    o.id AS inner_id, o.replies_count AS inner_replies_count, o.reblogs_count AS inner_reblogs_count, o.favourites_count AS inner_favourites_count`;
  if (!withViewer) return `${counters}, 0 AS f, 0 AS r, 0 AS b, 0 AS p, 0 AS m`;
  const shown = 'coalesce(o.id, s.id)';
  return `${counters},
    EXISTS (SELECT 1 FROM favourites WHERE account_id = @viewer_id AND status_id = ${shown}) AS f,
    EXISTS (SELECT 1 FROM statuses x WHERE x.account_id = @viewer_id AND x.reblog_of_id = ${shown} AND x.reblog_of_id IS NOT NULL) AS r,
    EXISTS (SELECT 1 FROM bookmarks WHERE account_id = @viewer_id AND status_id = ${shown}) AS b,
    EXISTS (SELECT 1 FROM status_pins WHERE account_id = @viewer_id AND status_id = ${shown}) AS p,
    EXISTS (SELECT 1 FROM conversation_mutes WHERE account_id = @viewer_id AND conversation_id = coalesce(o.conversation_id, s.conversation_id)) AS m`;
}

const IDS = 'IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))';

/** Counters and viewer flags of a batch of statuses (see `LiveStatusRow`); one statement. */
export function liveStatusState(db: Db, ids: readonly string[], viewerId: string | null): LiveStatusRow[] {
  return db
    .query<LiveStatusRow>(`SELECT ${liveColumnsSql(viewerId !== null)} FROM statuses s LEFT JOIN statuses o ON o.id = s.reblog_of_id WHERE s.id ${IDS}`)
    .all({ ids: JSON.stringify(ids), viewer_id: viewerId });
}

/** Of the given statuses, those the viewer may see (`visible`: core's rule), in no particular order. */
export function visibleStatusIds(db: Db, visible: VisibleSql, viewerId: string | null, ids: readonly string[]): Set<string> {
  if (ids.length === 0) return new Set();
  return new Set(
    db
      .query<{ id: string }>(`SELECT s.id FROM statuses s WHERE s.id ${IDS} AND ${visible('s')}`)
      .all({ ids: JSON.stringify(ids), viewer_id: viewerId })
      .map((r) => r.id),
  );
}
