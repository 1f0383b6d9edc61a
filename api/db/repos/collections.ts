import type { Db } from '../connection.js';

/** A row of `collections`. */
export interface CollectionRow {
  id: string;
  account_id: string;
  name: string;
  description: string;
  language: string | null;
  tag_id: string | null;
  sensitive: number;
  discoverable: number;
  created_at: number;
  updated_at: number;
}

export type CollectionItemState = 'pending' | 'accepted' | 'rejected' | 'revoked';

/** A row of `collection_items`. */
export interface CollectionItemRow {
  id: string;
  collection_id: string;
  account_id: string;
  state: CollectionItemState;
  position: number;
  created_at: number;
  updated_at: number;
}

/** Inserts a collection. */
export function insertCollection(db: Db, row: CollectionRow): void {
  db.query(
    `INSERT INTO collections (id, account_id, name, description, language, tag_id, sensitive, discoverable, created_at, updated_at)
     VALUES (@id, @account_id, @name, @description, @language, @tag_id, @sensitive, @discoverable, @created_at, @updated_at)`,
  ).run({ ...row });
}

/** Rewrites a collection's attributes. */
export function updateCollection(db: Db, row: CollectionRow): void {
  db.query(
    `UPDATE collections SET name = @name, description = @description, language = @language, tag_id = @tag_id,
     sensitive = @sensitive, discoverable = @discoverable, updated_at = @updated_at WHERE id = @id`,
  ).run({ ...row });
}

/** Deletes a collection and its items. */
export function deleteCollection(db: Db, id: string): void {
  db.query('DELETE FROM collections WHERE id = ?').run(id);
}

/** A collection by id. */
export function findCollection(db: Db, id: string): CollectionRow | undefined {
  return db.query<CollectionRow>('SELECT * FROM collections WHERE id = ?').get(id);
}

/** Collections by id, in one query (missing ones are absent). */
export function findCollectionsByIds(db: Db, ids: readonly string[]): CollectionRow[] {
  if (ids.length === 0) return [];
  return db.query<CollectionRow>('SELECT * FROM collections WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))').all(JSON.stringify([...new Set(ids)]));
}

/** How many collections an account curates. */
export function countCollections(db: Db, accountId: string): number {
  return db.query<{ n: number }>('SELECT count(*) AS n FROM collections WHERE account_id = ?').get(accountId)?.n ?? 0;
}

/** A page of an account's collections, newest first; only discoverable ones when `discoverableOnly`. */
export function accountCollections(db: Db, accountId: string, discoverableOnly: boolean, offset: number, limit: number): CollectionRow[] {
  return db
    .query<CollectionRow>(
      `SELECT * FROM collections WHERE account_id = @account_id ${discoverableOnly ? 'AND discoverable = 1' : ''}
       ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`,
    )
    .all({ account_id: accountId, limit, offset });
}

/** A page of the collections an account is featured in (its item accepted), newest first. */
export function collectionsFeaturing(db: Db, accountId: string, offset: number, limit: number): CollectionRow[] {
  return db
    .query<CollectionRow>(
      `SELECT c.* FROM collections c JOIN collection_items i ON i.collection_id = c.id
       WHERE i.account_id = @account_id AND i.state = 'accepted'
       ORDER BY c.created_at DESC, c.id DESC LIMIT @limit OFFSET @offset`,
    )
    .all({ account_id: accountId, limit, offset });
}

/** Inserts an item at the end of its collection. */
export function insertCollectionItem(db: Db, row: Omit<CollectionItemRow, 'position'>): void {
  db.query(
    `INSERT INTO collection_items (id, collection_id, account_id, state, position, created_at, updated_at)
     VALUES (@id, @collection_id, @account_id, @state,
       (SELECT coalesce(max(position), 0) + 1 FROM collection_items WHERE collection_id = @collection_id), @created_at, @updated_at)`,
  ).run({ ...row });
}

/** An item of a collection by its id. */
export function findCollectionItem(db: Db, collectionId: string, itemId: string): CollectionItemRow | undefined {
  return db.query<CollectionItemRow>('SELECT * FROM collection_items WHERE id = @id AND collection_id = @collection_id').get({ id: itemId, collection_id: collectionId });
}

/** An account's item in a collection, if any. */
export function findCollectionItemOfAccount(db: Db, collectionId: string, accountId: string): CollectionItemRow | undefined {
  return db
    .query<CollectionItemRow>('SELECT * FROM collection_items WHERE collection_id = @collection_id AND account_id = @account_id')
    .get({ collection_id: collectionId, account_id: accountId });
}

/** Deletes an item. */
export function deleteCollectionItem(db: Db, id: string): void {
  db.query('DELETE FROM collection_items WHERE id = ?').run(id);
}

/** Changes an item's state. */
export function setCollectionItemState(db: Db, id: string, state: CollectionItemState, at: number): void {
  db.query('UPDATE collection_items SET state = @state, updated_at = @at WHERE id = @id').run({ id, state, at });
}

/** The items of a batch of collections in the given states, in collection order. */
export function itemsOfCollections(db: Db, collectionIds: readonly string[], states: readonly CollectionItemState[]): CollectionItemRow[] {
  if (collectionIds.length === 0) return [];
  return db
    .query<CollectionItemRow>(
      `SELECT * FROM collection_items WHERE collection_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))
       AND state IN (SELECT value FROM json_each(@states)) ORDER BY collection_id, position`,
    )
    .all({ ids: JSON.stringify([...new Set(collectionIds)]), states: JSON.stringify(states) });
}
