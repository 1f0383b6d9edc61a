import type { PageBounds } from '../../db/paging.js';
import { tagDailyUses } from '../../db/repos/search.js';
import { deleteTagFollow, followedTagsPage, insertTagFollow, localFollowersOfTags, tagRelationshipRows } from '../../db/repos/tag-follows.js';
import { findTagByNormalizedName, insertTag, type TagRow } from '../../db/repos/tags.js';
import { toMastodonTag, type MastodonTag, type MastodonTagHistory } from '../../serializers/tag.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import { minIdAtTime, newId } from '../../util/ids.js';
import { normalizeTagName } from '../../util/text/index.js';
import type { Deps } from '../deps.js';

/**
 * Hashtags as things an account acts on: looking one up by name, following and unfollowing it,
 * the followed tags, and who follows which tags (for the home feed's fan-out).
 */

/** Longest hashtag name accepted from a request. */
export const TAG_NAME_MAX = 256;
const DAY = 86_400_000;
const HISTORY_DAYS = 7;

// Tag::HASHTAG_NAME_RE: letters, marks, digits and '_', with separators (middle dot, katakana
// middle dot, ZWNJ) only inside the name, and at least one letter.
const TAG_NAME = /^[\p{L}\p{M}\p{N}_](?:[\p{L}\p{M}\p{N}_\u00B7\u30FB\u200C]*[\p{L}\p{M}\p{N}_])?$/u;

/** A name as a request gives it, trimmed and without a leading number sign. */
export function cleanTagName(raw: string): string {
  return raw.trim().replace(/^#/, '');
}

/** True when `name` (without '#') is a valid hashtag name. */
export function isValidTagName(name: string): boolean {
  return name.length <= TAG_NAME_MAX && TAG_NAME.test(name) && /\p{L}/u.test(name);
}

/** The stored tag of that name (any case), if any. */
export function findTag(deps: Deps, name: string): TagRow | undefined {
  return findTagByNormalizedName(deps.db, normalizeTagName(name));
}

/** The tag of that name, created as written if new. Call inside a transaction. */
export function findOrCreateTag(deps: Deps, name: string): TagRow {
  const existing = findTag(deps, name);
  if (existing) return existing;
  const at = now();
  const row: TagRow = { id: newId(at), name, name_normalized: normalizeTagName(name), usable: 1, listable: 1, last_status_at: null, created_at: at };
  insertTag(deps.db, row);
  return row;
}

/** A tag name from a path (`/api/v1/tags/:id`): 404 when it cannot be a hashtag. */
export function tagNameFromPath(raw: string): string {
  const name = cleanTagName(raw);
  if (!isValidTagName(name)) throw notFound();
  return name;
}

/** The last seven days of use of each tag, newest day first (Tag `history`). */
export function tagHistories(deps: Deps, tagIds: readonly string[]): Map<string, MastodonTagHistory[]> {
  const today = Math.floor(now() / DAY);
  const uses = tagDailyUses(deps.db, tagIds, minIdAtTime((today - (HISTORY_DAYS - 1)) * DAY));
  const out = new Map<string, MastodonTagHistory[]>();
  for (const id of tagIds) {
    const days = uses.get(id);
    const list: MastodonTagHistory[] = [];
    for (let d = today; d > today - HISTORY_DAYS; d--) {
      const u = days?.get(d);
      list.push({ day: String((d * DAY) / 1000), uses: String(u?.uses ?? 0), accounts: String(u?.accounts ?? 0) });
    }
    out.set(id, list);
  }
  return out;
}

/**
 * Whether the viewer follows and features each tag, in one query (for Tag entities elsewhere, such
 * as search results). Tags not in the answer are neither.
 */
export function tagRelationships(deps: Deps, viewerId: string, tagIds: readonly string[]): Map<string, { following: boolean; featuring: boolean }> {
  const out = new Map<string, { following: boolean; featuring: boolean }>();
  for (const r of tagRelationshipRows(deps.db, viewerId, tagIds)) out.set(r.tag_id, { following: r.following === 1, featuring: r.featuring === 1 });
  return out;
}

/**
 * Tag entities for stored tags, in order, with history; `following` and `featuring` are given to
 * a signed-in viewer only, as Mastodon does.
 */
export function presentTags(deps: Deps, rows: readonly TagRow[], viewerId: string | null): MastodonTag[] {
  const ids = rows.map((r) => r.id);
  const history = tagHistories(deps, ids);
  const relations = viewerId === null ? null : tagRelationships(deps, viewerId, ids);
  return rows.map((row) => {
    const rel = relations?.get(row.id);
    const viewer = relations === null ? {} : { following: rel?.following ?? false, featuring: rel?.featuring ?? false };
    return toMastodonTag(row, deps.uris, { history: history.get(row.id) ?? [], ...viewer });
  });
}

/**
 * `GET /api/v1/tags/:name`: the tag, case-insensitive. A valid name nobody used yet answers an
 * unsaved tag (empty id, no use), as Mastodon does; an invalid name is 404.
 */
export function getTag(deps: Deps, rawName: string, viewerId: string | null): MastodonTag {
  const name = tagNameFromPath(rawName);
  const row = findTag(deps, name);
  if (row) return presentTags(deps, [row], viewerId)[0] as MastodonTag;
  const unsaved: TagRow = { id: '', name, name_normalized: normalizeTagName(name), usable: 1, listable: 1, last_status_at: null, created_at: now() };
  const history = tagHistories(deps, ['0']).get('0') ?? [];
  return toMastodonTag(unsaved, deps.uris, { history, ...(viewerId === null ? {} : { following: false, featuring: false }) });
}

/** The account follows a tag (created if new); following it again changes nothing. */
export function followTag(deps: Deps, accountId: string, rawName: string): MastodonTag {
  const name = tagNameFromPath(rawName);
  const at = now();
  const { tag, created } = deps.db.transaction(() => {
    const t = findOrCreateTag(deps, name);
    return { tag: t, created: insertTagFollow(deps.db, { id: newId(at), account_id: accountId, tag_id: t.id, created_at: at }) };
  });
  if (created) deps.events.emit('tag.followed', { accountId, tagId: tag.id });
  return presentTags(deps, [tag], accountId)[0] as MastodonTag;
}

/** The account stops following a tag; not following it is not an error. */
export function unfollowTag(deps: Deps, accountId: string, rawName: string): MastodonTag {
  const name = tagNameFromPath(rawName);
  const tag = findTag(deps, name);
  if (!tag) return getTag(deps, name, accountId);
  if (deps.db.transaction(() => deleteTagFollow(deps.db, accountId, tag.id))) deps.events.emit('tag.unfollowed', { accountId, tagId: tag.id });
  return presentTags(deps, [tag], accountId)[0] as MastodonTag;
}

/** One page of the tags an account follows, newest follow first, with the follow ids as cursors. */
export function listFollowedTags(deps: Deps, accountId: string, page: PageBounds): { tags: MastodonTag[]; cursors: string[] } {
  const rows = followedTagsPage(deps.db, accountId, page);
  return { tags: presentTags(deps, rows, accountId), cursors: rows.map((r) => r.follow_id) };
}

/**
 * The local accounts following any of the tags (each once): the home feeds a status carrying
 * those tags also goes to. The caller decides whether the status may go there at all (see the
 * timelines fan-out).
 */
export function followersOfTags(deps: Deps, tagIds: readonly string[]): string[] {
  return localFollowersOfTags(deps.db, tagIds);
}
