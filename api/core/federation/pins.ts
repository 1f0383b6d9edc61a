import type { AccountRow } from '../../db/repos/accounts.js';
import { deletePin, insertPin } from '../../db/repos/interactions.js';
import { featuredTagIdsOf, pinnedStatusIdsOf } from '../../db/repos/remote-featured.js';
import { findStatusesByIds } from '../../db/repos/statuses.js';
import { deleteFeaturedTag, insertFeaturedTag } from '../../db/repos/tag-follows.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { ACCOUNT_LIMITS } from '../instance/limits.js';
import { cleanTagName, findOrCreateTag, findTag, isValidTagName } from '../tags/tags.js';

/**
 * Featured-collection sync for remote accounts: the pins (`featured`) and featured hashtags
 * (`featuredTags`) a remote account publishes replace what was known of them. Add/Remove of one
 * status at a time is `receiveRemotePin` (moderation.ts), of one hashtag `changeRemoteFeaturedTag`.
 */

/** Statuses kept as a remote account's pins at most (Mastodon shows five; servers send more). */
export const REMOTE_PINS_MAX = 20;

/**
 * Sets a remote account's pins to exactly `statusIds` (its own statuses, the collection's order:
 * first is the most recently pinned). Statuses of other accounts, unknown ids and duplicates are
 * left out; pins that remain keep their row. Returns the status ids pinned after the sync.
 */
export function syncRemotePins(deps: Deps, account: AccountRow, statusIds: readonly string[]): string[] {
  if (account.domain === null) return [];
  const statuses = findStatusesByIds(deps.db, statusIds);
  const wanted = [...new Set(statusIds)].filter((id) => statuses.get(id)?.account_id === account.id).slice(0, REMOTE_PINS_MAX);
  const at = now();
  deps.db.transaction(() => {
    const current = new Set(pinnedStatusIdsOf(deps.db, account.id));
    for (const id of current) if (!wanted.includes(id)) deletePin(deps.db, account.id, id);
    // Inserted last-first, so pin ids (newest first when listed) follow the collection's order.
    for (const id of [...wanted].reverse()) {
      if (current.has(id)) continue;
      insertPin(deps.db, { id: newId(at), account_id: account.id, status_id: id, created_at: at });
    }
  });
  return wanted;
}

/**
 * Sets a remote account's featured hashtags to exactly `names` (with or without '#'; invalid
 * names and duplicates are left out, at most the instance's `max_featured_tags`). Their counts and
 * last use are computed from the statuses known here when they are shown. Returns the names kept.
 */
export function syncRemoteFeaturedTags(deps: Deps, account: AccountRow, names: readonly string[]): string[] {
  if (account.domain === null) return [];
  const seen = new Set<string>();
  const wanted: string[] = [];
  for (const raw of names) {
    const name = cleanTagName(raw);
    if (!isValidTagName(name) || seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    wanted.push(name);
  }
  const kept = wanted.slice(0, ACCOUNT_LIMITS.max_featured_tags);
  const at = now();
  deps.db.transaction(() => {
    const tagIds = new Set(kept.map((name) => findOrCreateTag(deps, name).id));
    const current = featuredTagIdsOf(deps.db, account.id);
    for (const row of current) if (!tagIds.has(row.tag_id)) deleteFeaturedTag(deps.db, row.id);
    const have = new Set(current.map((r) => r.tag_id));
    for (const tagId of tagIds) {
      if (!have.has(tagId)) insertFeaturedTag(deps.db, { id: newId(at), account_id: account.id, tag_id: tagId, created_at: at });
    }
  });
  return kept;
}

/**
 * One featured hashtag of a remote account added or removed (its server's Add or Remove of a
 * Hashtag, as Mastodon sends them). `rawName` may carry '#'; an invalid name changes nothing, and
 * an addition beyond the instance's `max_featured_tags` is left out, as a sync would. Returns
 * whether anything changed.
 */
export function changeRemoteFeaturedTag(deps: Deps, account: AccountRow, rawName: string, featured: boolean): boolean {
  const name = cleanTagName(rawName);
  if (account.domain === null || !isValidTagName(name)) return false;
  return deps.db.transaction(() => {
    const tag = featured ? findOrCreateTag(deps, name) : findTag(deps, name);
    if (!tag) return false;
    const current = featuredTagIdsOf(deps.db, account.id);
    const row = current.find((r) => r.tag_id === tag.id);
    if (!featured) {
      if (row) deleteFeaturedTag(deps.db, row.id);
      return row !== undefined;
    }
    if (row || current.length >= ACCOUNT_LIMITS.max_featured_tags) return false;
    insertFeaturedTag(deps.db, { id: newId(now()), account_id: account.id, tag_id: tag.id, created_at: now() });
    return true;
  });
}
