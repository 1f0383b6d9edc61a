import type { CollectionItemRow, CollectionRow } from '../db/repos/collections.js';
import { isoTime } from '../util/clock.js';
import type { MastodonStatusTag } from './tag.js';

/** Mastodon's CollectionItem entity: an account featured in a collection. */
export interface MastodonCollectionItem {
  id: string;
  account_id: string | null;
  state: CollectionItemRow['state'];
  created_at: string;
}

/** Mastodon's Collection entity (4.6). */
export interface MastodonCollection {
  id: string;
  account_id: string;
  uri: string;
  url: string | null;
  name: string;
  description: string;
  language: string | null;
  local: boolean;
  sensitive: boolean;
  discoverable: boolean;
  tag: MastodonStatusTag | null;
  item_count: number;
  items: MastodonCollectionItem[];
  created_at: string;
  updated_at: string;
}

/** The CollectionItem entity of an item row. */
export function toMastodonCollectionItem(row: CollectionItemRow): MastodonCollectionItem {
  return { id: row.id, account_id: row.account_id, state: row.state, created_at: isoTime(row.created_at) };
}

/**
 * The Collection entity of a local collection: `uri` is its ActivityPub id, `items` those the
 * viewer may see, `item_count` every item that is accepted or waiting for approval. There is no
 * web page for it (`url` null).
 */
export function toMastodonCollection(
  row: CollectionRow,
  extra: { uri: string; tag: MastodonStatusTag | null; items: readonly CollectionItemRow[]; itemCount: number },
): MastodonCollection {
  return {
    id: row.id,
    account_id: row.account_id,
    uri: extra.uri,
    url: null,
    name: row.name,
    description: row.description,
    language: row.language,
    local: true,
    sensitive: row.sensitive === 1,
    discoverable: row.discoverable === 1,
    tag: extra.tag,
    item_count: extra.itemCount,
    items: extra.items.map(toMastodonCollectionItem),
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}
