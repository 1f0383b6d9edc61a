import { findAccountById } from '../../db/repos/accounts.js';
import { blockedAmong } from '../../db/repos/blocks.js';
import { itemsOfCollections, type CollectionItemRow, type CollectionRow } from '../../db/repos/collections.js';
import { findTagsByIds } from '../../db/repos/tag-follows.js';
import type { Account } from '../../serializers/account.js';
import { toMastodonCollection, type MastodonCollection } from '../../serializers/collection.js';
import { toMastodonStatusTag } from '../../serializers/tag.js';
import type { Deps } from '../deps.js';
import { presentAccounts } from '../accounts/views.js';

/** What the viewer sees of collections: each collection with the items they may see. */
interface Loaded {
  row: CollectionRow;
  items: CollectionItemRow[];
  itemCount: number;
}

/**
 * The items of each collection as a viewer sees them, in one query: its curator sees the items
 * that are accepted or waiting for approval, everyone else only accepted ones; accounts the viewer
 * blocks are left out (Mastodon's `items_for`).
 */
function load(deps: Deps, rows: readonly CollectionRow[], viewerId: string | null): Loaded[] {
  const all = itemsOfCollections(deps.db, rows.map((r) => r.id), ['pending', 'accepted']);
  const blocked = viewerId === null ? new Set<string>() : blockedAmong(deps.db, viewerId, [...new Set(all.map((i) => i.account_id))]);
  return rows.map((row) => {
    const mine = all.filter((i) => i.collection_id === row.id);
    const own = viewerId === row.account_id;
    const items = mine.filter((i) => (own || i.state === 'accepted') && !blocked.has(i.account_id));
    return { row, items, itemCount: mine.length };
  });
}

/** The ActivityPub id of a local collection: below its curator's actor. */
export function collectionUri(deps: Deps, row: CollectionRow): string {
  const owner = findAccountById(deps.db, row.account_id);
  return `${deps.uris.accountUri(owner?.username ?? row.account_id)}/collections/${row.id}`;
}

function entities(deps: Deps, loaded: readonly Loaded[]): MastodonCollection[] {
  const tags = new Map(findTagsByIds(deps.db, loaded.map((l) => l.row.tag_id).filter((t): t is string => t !== null)).map((t) => [t.id, t]));
  return loaded.map(({ row, items, itemCount }) => {
    const tag = row.tag_id === null ? undefined : tags.get(row.tag_id);
    return toMastodonCollection(row, { uri: collectionUri(deps, row), tag: tag ? toMastodonStatusTag(tag, deps.uris) : null, items, itemCount });
  });
}

/** Collection entities for rows, in order, as the viewer sees them. */
export function presentCollections(deps: Deps, rows: readonly CollectionRow[], viewerId: string | null): MastodonCollection[] {
  return entities(deps, load(deps, rows, viewerId));
}

/** Mastodon's CollectionWithAccounts: the collection and the accounts of its curator and of the items shown. */
export function presentCollectionWithAccounts(deps: Deps, row: CollectionRow, viewerId: string | null): { collection: MastodonCollection; accounts: Account[] } {
  const [loaded] = load(deps, [row], viewerId);
  if (!loaded) throw new Error(`collection ${row.id} vanished`);
  const [collection] = entities(deps, [loaded]);
  if (!collection) throw new Error(`collection ${row.id} vanished`);
  const ids = [...new Set([row.account_id, ...loaded.items.map((i) => i.account_id)])];
  return { collection, accounts: presentAccounts(deps, ids) };
}
