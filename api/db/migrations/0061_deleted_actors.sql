-- Remote actors that deleted themselves (an inbound Delete whose object is the sender's own actor).
-- Their account row is removed with everything hanging on it, as Mastodon destroys a deleted remote
-- account; this tombstone keeps what the same actor URI sends afterwards from re-creating it.
CREATE TABLE deleted_actors (
  uri TEXT PRIMARY KEY,                       -- the actor's ActivityPub id
  domain TEXT NOT NULL,                       -- as accounts.domain (Unicode, lower case)
  deleted_at INTEGER NOT NULL
) STRICT;
