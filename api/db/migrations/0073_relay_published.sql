-- The public cache publisher of the relay connector (api/relay/publisher.ts): what to (re)publish
-- and what is on the relay.
--
-- relay_publish_queue holds targets to render and publish again: an entity whose public documents
-- changed ('status:<id>', 'account:<id>', 'outbox:<id>', 'followers:<id>', 'following:<id>',
-- 'featured:<id>', 'featured_tags:<id>', 'instance', 'nodeinfo', 'emojis', or 'everything' for a
-- first enrolment). A row leaves the queue once its documents are on the relay; marking a target
-- again while it is being published bumps its version, so the publisher's delete (which names the
-- version it read) leaves it queued for another pass.
CREATE TABLE relay_publish_queue (
  target TEXT NOT NULL PRIMARY KEY,
  payload TEXT,                               -- JSON; for a deleted status, its URI and deletion time
  priority INTEGER NOT NULL,                  -- 1: a change noticed by an event (deliveries wait for it); 0: a sweep
  version INTEGER NOT NULL DEFAULT 1,
  attempts INTEGER NOT NULL DEFAULT 0,        -- failures since the last success or mark
  due_at INTEGER NOT NULL,                    -- ms since epoch; later than now while backing off
  last_error TEXT
) STRICT, WITHOUT ROWID;

CREATE INDEX relay_publish_queue_due ON relay_publish_queue (priority, due_at);

-- One row per cache key the publisher sent: a hash of what was sent (so a document goes again
-- only when its bytes change), the aliases it was stored under (removed with it), and whether the
-- relay refused it (then it is not sent again until it changes).
CREATE TABLE relay_published (
  key TEXT NOT NULL PRIMARY KEY,              -- the path and query a peer requests
  target TEXT NOT NULL,                       -- the queue target whose rendering produced it
  aliases TEXT NOT NULL,                      -- JSON array of the other keys it was stored under
  status INTEGER NOT NULL,                    -- 200, or 410 for a Tombstone
  doc_type TEXT,                              -- the ActivityPub type (Note, Question…), for a later Tombstone
  hash TEXT NOT NULL,                         -- SHA-256 of status, content type, aliases and body
  refused INTEGER NOT NULL DEFAULT 0,
  published_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX relay_published_target ON relay_published (target);

-- The enrolment the records above are about: a new relay or tenant starts from nothing.
CREATE TABLE relay_publisher (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  enrolment TEXT NOT NULL,
  started_at INTEGER NOT NULL
) STRICT;
