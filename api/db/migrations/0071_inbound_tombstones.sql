-- Inbound tombstones: what a remote actor undid (the id of its Follow, Like, Announce or Block that
-- an Undo named) or deleted (the id of its Note or Question, or of its own actor when that actor was
-- never known here). Peers retry out of order and the relay replays at least once, so the undone or
-- deleted activity may arrive after its Undo or Delete, or again days later: while its row lives,
-- that activity from the same actor changes nothing. Keyed by the undone id, never by an
-- (actor, object) pair: a new Follow or Like gets a new id. Rows older than 30 days are pruned.
CREATE TABLE inbound_tombstones (
  uri TEXT NOT NULL,                          -- the undone activity's id, or the deleted object's id
  actor_uri TEXT NOT NULL,                    -- the actor that undid or deleted it (the only one it binds)
  tombstoned_at INTEGER NOT NULL,             -- when it was last undone or deleted (ms since epoch)
  PRIMARY KEY (uri, actor_uri)
) STRICT, WITHOUT ROWID;

CREATE INDEX inbound_tombstones_at ON inbound_tombstones (tombstoned_at);
