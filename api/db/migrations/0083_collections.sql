-- Collections (Mastodon 4.6): lists of accounts a user recommends to others, with their items.
-- Only local collections are kept for now (no federation of FeaturedCollection yet).
CREATE TABLE collections (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,  -- the curator
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  language TEXT,
  tag_id INTEGER REFERENCES tags (id) ON DELETE SET NULL,
  sensitive INTEGER NOT NULL DEFAULT 0,
  discoverable INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE INDEX collections_account ON collections (account_id, created_at DESC);

-- An account featured in a collection. `state`: pending (waiting for the featured account's
-- approval), accepted, rejected, revoked (the featured account withdrew).
CREATE TABLE collection_items (
  id INTEGER PRIMARY KEY,
  collection_id INTEGER NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'accepted', 'rejected', 'revoked')),
  position INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (collection_id, account_id)
) STRICT;

CREATE INDEX collection_items_account ON collection_items (account_id, collection_id);
