import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import {
  countFeaturedTags,
  deleteFeaturedTag,
  featuredTagsWithStats,
  findFeaturedTag,
  findFeaturedTagByName,
  findFeaturedTagByTag,
  findTagsByIds,
  insertFeaturedTag,
  recentlyUsedTags,
} from '../../db/repos/tag-follows.js';
import type { TagRow } from '../../db/repos/tags.js';
import { findUserByAccountId } from '../../db/repos/users.js';
import { toMastodonFeaturedTag, type MastodonFeaturedTag } from '../../serializers/featured-tag.js';
import type { MastodonTag } from '../../serializers/tag.js';
import { now } from '../../util/clock.js';
import { notFound, unprocessable, type ApiError } from '../../util/errors.js';
import { isId, newId } from '../../util/ids.js';
import { Problems } from '../filters/problems.js';
import { ACCOUNT_LIMITS } from '../instance/limits.js';
import type { Deps } from '../deps.js';
import { cleanTagName, findOrCreateTag, findTag, getTag, isValidTagName, presentTags, tagNameFromPath } from './tags.js';

/**
 * Featured hashtags: the tags an account shows on its profile, at most `max_featured_tags` (the
 * limit the instance advertises), each with how many of the account's public and unlisted
 * statuses carry it and when the last one was posted.
 */

/** Statuses looked at to suggest tags to feature (Mastodon's RECENT_STATUS_LIMIT). */
const RECENT_STATUSES = 1000;
/** Tags suggested at most. */
const SUGGESTIONS = 10;

/** A 422 whose `details` name the attribute at fault, as Mastodon's validation errors do. */
function invalid(attribute: string, message: string, description = message): ApiError {
  return unprocessable(message, { details: { [attribute]: [{ error: 'ERR_INVALID', description }] } });
}

/** The account's featured tags as FeaturedTag entities. */
function present(deps: Deps, account: AccountRow): MastodonFeaturedTag[] {
  return featuredTagsWithStats(deps.db, account.id).map((row) => toMastodonFeaturedTag(row, account, deps.uris));
}

function presentOne(deps: Deps, account: AccountRow, featuredTagId: string): MastodonFeaturedTag {
  const found = present(deps, account).find((t) => t.id === featuredTagId);
  if (!found) throw notFound();
  return found;
}

/** `GET /api/v1/featured_tags`: the signed-in account's featured tags. */
export function listOwnFeaturedTags(deps: Deps, account: AccountRow): MastodonFeaturedTag[] {
  return present(deps, account);
}

/**
 * `GET /api/v1/accounts/:id/featured_tags`: another account's featured tags. An unknown account
 * (or a sign-up still waiting for approval) is 404; a suspended one features nothing.
 */
export function accountFeaturedTags(deps: Deps, accountId: string): MastodonFeaturedTag[] {
  const account = isId(accountId) ? findAccountById(deps.db, accountId) : undefined;
  if (!account) throw notFound();
  if (account.domain === null && findUserByAccountId(deps.db, account.id)?.approved === 0) throw notFound();
  if (account.suspended_at !== null) return [];
  return present(deps, account);
}

/** Mastodon's message when the account is at `max_featured_tags`. */
const LIMIT_REACHED = 'You have already featured the maximum number of hashtags';

/**
 * Features the tag `name` (valid, without '#') through the tag itself, as POST /api/v1/tags/:id/
 * feature does (Mastodon's find_or_initialize_by(tag:)): a tag already featured, under any name,
 * is left as it is. One tag more than the limit is a 422 and writes nothing.
 */
function feature(deps: Deps, account: AccountRow, name: string): { featuredTagId: string; tag: TagRow } {
  const at = now();
  const result = deps.db.transaction(() => {
    const tag = findOrCreateTag(deps, name);
    const existing = findFeaturedTagByTag(deps.db, account.id, tag.id);
    if (existing) return { featuredTagId: existing.id, tag, added: false };
    if (countFeaturedTags(deps.db, account.id) >= ACCOUNT_LIMITS.max_featured_tags) {
      // Thrown inside the transaction, so a tag created just above is rolled back too.
      throw invalid('base', LIMIT_REACHED);
    }
    const row = { id: newId(at), account_id: account.id, tag_id: tag.id, created_at: at };
    insertFeaturedTag(deps.db, row);
    return { featuredTagId: row.id, tag, added: true };
  });
  if (result.added) deps.events.emit('featured_tag.created', { accountId: account.id, name: result.tag.name });
  return { featuredTagId: result.featuredTagId, tag: result.tag };
}

/**
 * Features the tag under the name the owner wrote, as POST /api/v1/featured_tags does (Mastodon's
 * find_or_initialize_by(name:)): a featured tag found by exactly that name is returned as it is;
 * otherwise a new one is validated like Mastodon's FeaturedTag, every failed rule in one 422 in
 * Rails' order: the tag already featured (under another spelling, or through the tag itself) is
 * "Tag has already been taken", and the limit "You have already featured the maximum number of
 * hashtags". Nothing is written on a 422.
 */
function featureByName(deps: Deps, account: AccountRow, name: string): string {
  const at = now();
  const result = deps.db.transaction(() => {
    const named = findFeaturedTagByName(deps.db, account.id, name);
    if (named) return { featuredTagId: named.id, tag: null };
    const tag = findOrCreateTag(deps, name);
    const problems = new Problems();
    if (findFeaturedTagByTag(deps.db, account.id, tag.id)) problems.add('tag', 'Tag', 'ERR_TAKEN', 'has already been taken');
    if (countFeaturedTags(deps.db, account.id) >= ACCOUNT_LIMITS.max_featured_tags) problems.add('base', '', 'ERR_INVALID', LIMIT_REACHED);
    // Thrown inside the transaction, so a tag created just above is rolled back too.
    problems.throwIfAny();
    const row = { id: newId(at), account_id: account.id, tag_id: tag.id, created_at: at };
    insertFeaturedTag(deps.db, row, name);
    return { featuredTagId: row.id, tag };
  });
  if (result.tag) deps.events.emit('featured_tag.created', { accountId: account.id, name: result.tag.name });
  return result.featuredTagId;
}

/**
 * `POST /api/v1/featured_tags`: features a tag on the account's profile and returns it. The name
 * may carry a leading '#'; featuring again under the very same name answers the same featured tag,
 * while the same tag under another spelling is a 422 (see `featureByName`). An invalid name is a
 * 422 and nothing is written.
 */
export function featureTag(deps: Deps, account: AccountRow, rawName: string): MastodonFeaturedTag {
  const name = cleanTagName(rawName);
  if (!isValidTagName(name)) throw invalid('tag', 'Tag is invalid', 'is invalid');
  return presentOne(deps, account, featureByName(deps, account, name));
}

/** `DELETE /api/v1/featured_tags/:id`: 404 for a featured tag that is not the account's. */
export function unfeatureFeaturedTag(deps: Deps, accountId: string, featuredTagId: string): void {
  const name = deps.db.transaction(() => {
    const row = isId(featuredTagId) ? findFeaturedTag(deps.db, featuredTagId) : undefined;
    if (!row || row.account_id !== accountId) throw notFound();
    deleteFeaturedTag(deps.db, row.id);
    return findTagsByIds(deps.db, [row.tag_id])[0]?.name;
  });
  // Followers learn it through Remove(Hashtag), as Mastodon sends (see outbound-featured-tags.ts).
  if (name !== undefined) deps.events.emit('featured_tag.deleted', { accountId, name });
}

/** `POST /api/v1/tags/:name/feature`: features the tag and answers the Tag (404 for an invalid name). */
export function featureTagByName(deps: Deps, account: AccountRow, rawName: string): MastodonTag {
  const { tag } = feature(deps, account, tagNameFromPath(rawName));
  return presentTags(deps, [tag], account.id)[0] as MastodonTag;
}

/** `POST /api/v1/tags/:name/unfeature`: stops featuring the tag (not featured is not an error). */
export function unfeatureTagByName(deps: Deps, account: AccountRow, rawName: string): MastodonTag {
  const name = tagNameFromPath(rawName);
  const tag = findTag(deps, name);
  if (!tag) return getTag(deps, name, account.id);
  const removed = deps.db.transaction(() => {
    const row = findFeaturedTagByTag(deps.db, account.id, tag.id);
    if (row) deleteFeaturedTag(deps.db, row.id);
    return row !== undefined;
  });
  if (removed) deps.events.emit('featured_tag.deleted', { accountId: account.id, name: tag.name });
  return presentTags(deps, [tag], account.id)[0] as MastodonTag;
}

/** `GET /api/v1/featured_tags/suggestions`: up to ten tags the account used lately and does not feature. */
export function featuredTagSuggestions(deps: Deps, accountId: string): MastodonTag[] {
  return presentTags(deps, recentlyUsedTags(deps.db, accountId, RECENT_STATUSES, SUGGESTIONS), accountId);
}
