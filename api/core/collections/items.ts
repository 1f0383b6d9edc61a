import {
  deleteCollectionItem,
  findCollectionItem,
  findCollectionItemOfAccount,
  insertCollectionItem,
  itemsOfCollections,
  setCollectionItemState,
} from '../../db/repos/collections.js';
import { toMastodonCollectionItem, type MastodonCollectionItem } from '../../serializers/collection.js';
import { now } from '../../util/clock.js';
import { ApiError, forbidden, notFound } from '../../util/errors.js';
import { isId, newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { featureableAccount, loadCollection, loadOwnCollection, MAX_ITEMS } from './manage.js';

/**
 * The items of a collection: its curator adds and removes accounts; a featured account can
 * withdraw from someone else's collection (revoke).
 */

/**
 * `POST /api/v1/collections/:collection_id/items`: features one more account in one's own
 * collection (403 for someone else's, or for an account that cannot be featured; 404 for an
 * unknown one; 422 when `account_id` is missing, the account is already in it, or it is full).
 * A local account is accepted at once, and is told of it (an `added_to_collection` notification).
 */
export function addCollectionItem(deps: Deps, curatorId: string, collectionId: string, accountId: string | undefined): MastodonCollectionItem {
  const collection = loadOwnCollection(deps, curatorId, collectionId);
  if (accountId === undefined || accountId === '') throw new ApiError(422, '`account_id` parameter is missing');
  const target = featureableAccount(deps, curatorId, accountId);
  const existing = findCollectionItemOfAccount(deps.db, collection.id, target.id);
  if (existing && (existing.state === 'accepted' || existing.state === 'pending')) {
    throw new ApiError(422, 'Validation failed: Account has already been taken', {
      extra: { details: { account_id: [{ error: 'ERR_TAKEN', description: 'has already been taken' }] } },
    });
  }
  if (itemsOfCollections(deps.db, [collection.id], ['pending', 'accepted']).length >= MAX_ITEMS) {
    throw new ApiError(422, `Validation failed: Collection items is too long (maximum is ${MAX_ITEMS} items)`, {
      extra: { details: { collection_items: [{ error: 'ERR_TOO_LONG', description: `is too long (maximum is ${MAX_ITEMS} items)` }] } },
    });
  }
  const at = now();
  const id = newId(at);
  deps.db.transaction(() => {
    // An account that had withdrawn (or been refused) is asked again: its old item makes way.
    if (existing) deleteCollectionItem(deps.db, existing.id);
    insertCollectionItem(deps.db, { id, collection_id: collection.id, account_id: target.id, state: 'accepted', created_at: at, updated_at: at });
  });
  const item = findCollectionItem(deps.db, collection.id, id);
  if (!item) throw notFound();
  deps.events.emit('collection_item.added', { itemId: item.id, collectionId: collection.id, curatorId, accountId: target.id });
  return toMastodonCollectionItem(item);
}

function loadItem(deps: Deps, collectionId: string, itemId: string) {
  const item = isId(itemId) ? findCollectionItem(deps.db, collectionId, itemId) : undefined;
  if (!item) throw notFound();
  return item;
}

/** `DELETE /api/v1/collections/:collection_id/items/:id`: the curator removes an item (403 for someone else's collection). */
export function removeCollectionItem(deps: Deps, curatorId: string, collectionId: string, itemId: string): void {
  const collection = loadOwnCollection(deps, curatorId, collectionId);
  const item = loadItem(deps, collection.id, itemId);
  deps.db.transaction(() => deleteCollectionItem(deps.db, item.id));
}

/**
 * `POST /api/v1/collections/:collection_id/items/:id/revoke`: the featured account withdraws from
 * a collection (403 when the item is not theirs); the item stays, revoked, so it is not shown.
 */
export function revokeCollectionItem(deps: Deps, accountId: string, collectionId: string, itemId: string): void {
  const collection = loadCollection(deps, collectionId);
  const item = loadItem(deps, collection.id, itemId);
  if (item.account_id !== accountId) throw forbidden();
  if (item.state !== 'revoked') deps.db.transaction(() => setCollectionItemState(deps.db, item.id, 'revoked', now()));
}
